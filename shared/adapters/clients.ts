/**
 * The AWS SDK clients, each created once per process the first time a handler asks for it (a
 * handler that never asks never builds it, and its bundle leaves it out). Locally the endpoints
 * point at DynamoDB Local, fauxqs and the local scheduler; in AWS they are unset.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SchedulerClient } from '@aws-sdk/client-scheduler';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { awsConfig } from '#shared/config';

let documentClient: DynamoDBDocumentClient | undefined;
let sqs: SQSClient | undefined;
let scheduler: SchedulerClient | undefined;

const endpoint = (url: string | undefined) => (url ? { endpoint: url } : {});

/** The DynamoDB document client (undefined attributes are left out of items). */
export function dynamodbClient(): DynamoDBDocumentClient {
  documentClient ??= DynamoDBDocumentClient.from(
    new DynamoDBClient(endpoint(awsConfig().DYNAMODB_ENDPOINT)),
    {
      marshallOptions: { removeUndefinedValues: true },
    },
  );
  return documentClient;
}

export function sqsClient(): SQSClient {
  sqs ??= new SQSClient(endpoint(awsConfig().SQS_ENDPOINT));
  return sqs;
}

export function schedulerClient(): SchedulerClient {
  scheduler ??= new SchedulerClient(endpoint(awsConfig().SCHEDULER_ENDPOINT));
  return scheduler;
}
