/** The SQS client, created once per process. Locally `SQS_ENDPOINT` points it at fauxqs. */
import { SQSClient } from '@aws-sdk/client-sqs';

const endpoint = process.env.SQS_ENDPOINT;

export const sqs = new SQSClient(endpoint ? { endpoint } : {});
