/**
 * The floors a deposit's time is held against, measured on this stack in the same run:
 *
 *   direct sequence  the provider calls a first deposit at a bank makes (the paths the counters saw
 *                    it call, in order), made one after the other straight from this process with
 *                    the provider client: what the orchestration would cost if it cost nothing (the
 *                    transfer's outcome read every 25 ms until the bank has carried it out)
 *   queue hop        one message through SQS (fauxqs): send until a waiting receive has it
 *   table write      one conditional PutItem on DynamoDB Local
 *   write ceiling    conditional PutItems per second DynamoDB Local sustains with many writers
 */
import { randomUUID } from 'node:crypto';
import {
  CreateTableCommand,
  DeleteTableCommand,
  DynamoDBClient,
  PutItemCommand,
} from '@aws-sdk/client-dynamodb';
import {
  CreateQueueCommand,
  DeleteMessageCommand,
  DeleteQueueCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { localCredentials } from '#infra/local/credentials';
import type { LocalStack } from '#infra/local/stack';
import { localWallets } from '#infra/local/wallets';
import { isWalletAccount, walletAccounts } from '#shared/deposits/model/wallets';
import { ProviderClient, type ProviderCredentials } from '#shared/provider/client';
import { findBank } from '#shared/sandbox/catalog';
import { appSecret, type BenchUser } from './flow.ts';

const wallets = walletAccounts(localWallets);

/**
 * The calls of `paths` (a first deposit's, as counted), made directly for a fresh user of the same
 * bank; returns the time they took in ms.
 */
export async function directSequence(
  stack: LocalStack,
  user: BenchUser,
  paths: string[],
  amountMinor: number,
) {
  const client = new ProviderClient({ baseUrl: stack.sandboxUrl, timeoutMs: 10_000 });
  const credentials: ProviderCredentials = {
    accessToken: user.accessToken,
    appSecret,
    userSecret: user.userSecret,
  };
  const bank = findBank(user.bankId);
  if (!bank) throw new Error(`no bank ${user.bankId}`);
  const wallet = wallets.find((candidate) => candidate.currency === bank.currency);
  if (!wallet) throw new Error(`no wallet in ${bank.currency}`);
  const order = { amountMinor, currency: bank.currency, senderID: user.accountId };
  let receiverID = '';
  let operationID: string | undefined;
  const started = performance.now();
  for (const path of paths) {
    switch (path) {
      case '/v1/metadata/accounts/get':
        await client.getMetadata(credentials);
        break;
      case '/v1/payment/beneficiaries/get': {
        const listed = await client.listBeneficiaries(credentials);
        const match = listed.response.beneficiaries?.find((candidate) => isWalletAccount(wallet, candidate));
        if (match) receiverID = match.id;
        break;
      }
      case '/v1/payment/beneficiaries/create':
        await client.createBeneficiary(credentials, wallet.beneficiary);
        break;
      case '/v1/payment/transfer/create': {
        // As the orchestrator submits it: `sync: false`, the outcome read back.
        const submitted = await client.createTransfer(
          credentials,
          { ...order, receiverID, ...(bank.detailsOnFirstTransfer ? { beneficiary: wallet.inline } : {}) },
          undefined,
          { sync: false },
        );
        operationID = submitted.status === 'initialized' ? submitted.id : undefined;
        break;
      }
      case '/v2/operation/get':
        // Read as fast as a direct caller would (every 25 ms) until the bank says how it ended: the
        // floor includes the bank's own time to carry the transfer out, not our reads' spacing.
        while (operationID) {
          const read = await client.getOperation(credentials, { operationID });
          if (read.status !== 'initialized') operationID = undefined;
          else await new Promise((again) => setTimeout(again, 25));
        }
        break;
      case '/v1/payment/transfer/autoflow':
        await client.createAutoflowTransfer(credentials, { ...order, beneficiary: wallet.inline });
        break;
      default:
        throw new Error(`the direct sequence has no call for ${path}`);
    }
  }
  return performance.now() - started;
}

const localAws = { region: 'us-east-1', credentials: localCredentials };

/** Times of one message through a queue of the local SQS: send until a waiting receive has it. */
export async function queueHops(stack: LocalStack, count: number): Promise<number[]> {
  const sqs = new SQSClient({ ...localAws, endpoint: stack.sqsEndpoint });
  const { QueueUrl } = await sqs.send(
    new CreateQueueCommand({ QueueName: `bench-hop-${randomUUID().slice(0, 8)}` }),
  );
  const times: number[] = [];
  try {
    for (let index = 0; index < count; index += 1) {
      const receiving = sqs.send(
        new ReceiveMessageCommand({ QueueUrl, WaitTimeSeconds: 5, MaxNumberOfMessages: 1 }),
      );
      // Let the receive reach the queue before the message does, as a waiting poller would.
      await new Promise((done) => setTimeout(done, 5));
      const started = performance.now();
      await sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: '{"depositId":"bench"}' }));
      const { Messages } = await receiving;
      times.push(performance.now() - started);
      const handle = Messages?.[0]?.ReceiptHandle;
      if (handle) await sqs.send(new DeleteMessageCommand({ QueueUrl, ReceiptHandle: handle }));
    }
  } finally {
    await sqs.send(new DeleteQueueCommand({ QueueUrl })).catch(() => undefined);
    sqs.destroy();
  }
  return times;
}

/** A deposit-sized item (about 1 KB). */
const filler = 'x'.repeat(900);

/**
 * Conditional PutItems on a scratch table of DynamoDB Local: `sequential` alone (each one's time),
 * then `writers` at once for `seconds` (the rate the store sustains).
 */
export async function tableWrites(
  stack: LocalStack,
  options: { sequential: number; writers: number; seconds: number },
): Promise<{ latencies: number[]; ceilingPerSecond: number }> {
  const dynamodb = new DynamoDBClient({ ...localAws, endpoint: stack.dynamodbEndpoint });
  const TableName = `bench-writes-${randomUUID().slice(0, 8)}`;
  await dynamodb.send(
    new CreateTableCommand({
      TableName,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
      KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
    }),
  );
  const put = () =>
    dynamodb.send(
      new PutItemCommand({
        TableName,
        Item: { pk: { S: randomUUID() }, version: { N: '1' }, body: { S: filler } },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  try {
    const latencies: number[] = [];
    for (let index = 0; index < options.sequential; index += 1) {
      const started = performance.now();
      await put();
      latencies.push(performance.now() - started);
    }
    let written = 0;
    const started = performance.now();
    const until = started + options.seconds * 1000;
    await Promise.all(
      Array.from({ length: options.writers }, async () => {
        while (performance.now() < until) {
          await put();
          written += 1;
        }
      }),
    );
    return { latencies, ceilingPerSecond: written / ((performance.now() - started) / 1000) };
  } finally {
    await dynamodb.send(new DeleteTableCommand({ TableName })).catch(() => undefined);
    dynamodb.destroy();
  }
}
