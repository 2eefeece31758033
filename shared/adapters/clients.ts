/**
 * The AWS SDK clients, each created once per process the first time a handler asks for it (a
 * handler that never asks never builds it, and its bundle leaves it out). Locally the endpoints
 * point at DynamoDB Local, fauxqs and the local scheduler; in AWS they are unset.
 *
 * `onClientCreated` lets a process add SDK middleware to every client made here (and to those made
 * already). Only local tools use it: the benchmark (test/bench/counting.ts counts each request by
 * service and operation on the local stack) and the local stack's DynamoDB faults
 * (infra/local/dynamodb-fault-middleware.ts); no handler registers anything, so nothing changes for
 * them.
 *
 * DynamoDB calls are tried `DYNAMODB_MAX_ATTEMPTS` times (the SDK's standard retries: a throttling,
 * a 5xx, a timeout or a reset connection is sent again after a growing, jittered pause), set here so
 * that the Lambdas in AWS and the local stack retry alike, whatever AWS_MAX_ATTEMPTS a machine has.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { KMSClient } from '@aws-sdk/client-kms';
import { SchedulerClient } from '@aws-sdk/client-scheduler';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { awsConfig } from '#shared/config';
import { tracer } from '#shared/tracing';

/** A client made here, and the service it calls. */
export type MadeClient = DynamoDBClient | SQSClient | SchedulerClient | KMSClient;
export type ClientHook = (client: MadeClient, service: 'DynamoDB' | 'SQS' | 'Scheduler' | 'KMS') => void;

const hooks: ClientHook[] = [];
const created: Parameters<ClientHook>[] = [];

/** Runs `hook` on every client this module has made and will make (the benchmark's counters). */
export function onClientCreated(hook: ClientHook): void {
  hooks.push(hook);
  for (const [client, service] of created) hook(client, service);
}

/** Each client's calls traced (X-Ray subsegments, in AWS; as it is where tracing is off). */
function made<C extends MadeClient>(untraced: C, service: Parameters<ClientHook>[1]): C {
  const client = tracer.captureAWSv3Client(untraced);
  created.push([client, service]);
  for (const hook of hooks) hook(client, service);
  return client;
}

let documentClient: DynamoDBDocumentClient | undefined;
let sqs: SQSClient | undefined;
let scheduler: SchedulerClient | undefined;
let kms: KMSClient | undefined;

const endpoint = (url: string | undefined) => (url ? { endpoint: url } : {});

/** Tries of one DynamoDB call, its first included: the SDK's own default for DynamoDB. */
export const DYNAMODB_MAX_ATTEMPTS = 4;

/** The DynamoDB document client (undefined attributes are left out of items). */
export function dynamodbClient(): DynamoDBDocumentClient {
  documentClient ??= DynamoDBDocumentClient.from(
    made(
      new DynamoDBClient({
        ...endpoint(awsConfig().DYNAMODB_ENDPOINT),
        maxAttempts: DYNAMODB_MAX_ATTEMPTS,
      }),
      'DynamoDB',
    ),
    {
      marshallOptions: { removeUndefinedValues: true },
    },
  );
  return documentClient;
}

export function sqsClient(): SQSClient {
  sqs ??= made(new SQSClient(endpoint(awsConfig().SQS_ENDPOINT)), 'SQS');
  return sqs;
}

export function schedulerClient(): SchedulerClient {
  scheduler ??= made(new SchedulerClient(endpoint(awsConfig().SCHEDULER_ENDPOINT)), 'Scheduler');
  return scheduler;
}

/** KMS, in AWS only: the local stack wraps data keys with a local key instead. */
export function kmsClient(): KMSClient {
  kms ??= made(new KMSClient({}), 'KMS');
  return kms;
}
