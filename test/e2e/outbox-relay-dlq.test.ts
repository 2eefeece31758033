/**
 * The outbox relay's failures can be recovered. A version whose event the relay
 * cannot send to the notify queue, after its own few tries, goes whole (its event, the deposit id,
 * version and event id, where the stream had it) to the relay's own DLQ, and the relay reports it
 * handled. Before, the record failed the batch until the event source mapping gave up and sent its
 * DLQ only the stream positions (locally: a line on stderr), which the stream forgets after 24 hours:
 * the event was lost.
 *
 * Over the real local parts: a deposits table of this file's own in DynamoDB Local (with the table's
 * stream), the local stream poller (`infra/local/streams.ts`) handing its records to the relay's
 * handler as the event source mapping does, and fauxqs (the e2e stack's queues, the notifier and the
 * webhook receiver). The one mock is the fault: this process's SQS client refuses every SendMessage to
 * the notify queue; everything else it sends goes to fauxqs.
 */
import { randomUUID } from 'node:crypto';
import { DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import {
  DeleteMessageCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import type { Context, DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { createTables } from '#infra/local/dynamodb-local';
import { startStreamPoller } from '#infra/local/streams';
import { IdempotencyItems } from '#shared/adapters/deposit-items';
import type { Deposit } from '#shared/deposits/model/deposit';
import { outbox, tables } from '#shared/topology';
import { webhookDeliveries } from '../support/deposits.ts';
import { eventually } from '../support/eventually.ts';
import { localDynamoDb } from '../support/local-dynamodb.ts';

const endpoint = inject('dynamodbEndpoint');
const queueUrls = inject('queueUrls');
const notifyUrl = queueUrls.notify?.url ?? '';
const relayQueue = queueUrls.outboxRelay;
const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };
const sqs = new SQSClient({ endpoint: inject('sqsEndpoint'), region: 'us-east-1', credentials });
const client = localDynamoDb();
const tableName = `outbox-dlq-${randomUUID().slice(0, 8)}`;
const table = { client, tableName };

// What the relay's function has in AWS (the local stack gives the same), pointed at the e2e stack.
vi.stubEnv('AWS_REGION', 'us-east-1');
vi.stubEnv('AWS_ACCESS_KEY_ID', credentials.accessKeyId);
vi.stubEnv('AWS_SECRET_ACCESS_KEY', credentials.secretAccessKey);
vi.stubEnv('SQS_ENDPOINT', inject('sqsEndpoint'));
vi.stubEnv('DYNAMODB_ENDPOINT', endpoint);
vi.stubEnv('NOTIFY_QUEUE_URL', notifyUrl);
vi.stubEnv('OUTBOX_RELAY_DLQ_URL', relayQueue?.dlqUrl ?? '');

/** The relay's answer to each batch the stream poller handed it: the records it failed (none: all handled). */
const answers: string[][] = [];
/** The sends to the notify queue the fault refused. */
let refused = 0;
let poller: { stop(): Promise<void> } | undefined;

beforeAll(async () => {
  // The fault (the one mock): the handler's own SQS client refuses every send to the notify queue.
  const { sqsClient } = await import('#shared/adapters/clients');
  const relaySqs: SQSClient = sqsClient();
  const send = relaySqs.send.bind(relaySqs) as (command: unknown) => Promise<unknown>;
  vi.spyOn(relaySqs, 'send').mockImplementation((async (command: unknown) => {
    if (command instanceof SendMessageCommand && command.input.QueueUrl === notifyUrl) {
      refused += 1;
      throw Object.assign(new Error('the notify queue is unreachable (injected)'), {
        name: 'ServiceUnavailable',
      });
    }
    return send(command);
  }) as never);

  const relay = (await import('#functions/notifier/outbox')) as {
    handler: (event: DynamoDBStreamEvent, context: Context) => Promise<DynamoDBBatchResponse | undefined>;
  };
  await createTables(endpoint, [{ name: tableName, spec: tables.deposits }]);
  poller = await startStreamPoller({
    endpoint,
    tableName,
    handler: async (event, context) => {
      try {
        const answer = await relay.handler(event, context);
        answers.push((answer?.batchItemFailures ?? []).map((failure) => `failed ${failure.itemIdentifier}`));
        return answer;
      } catch (error) {
        // A batch whose every record failed throws (Powertools): the stream hands it back.
        answers.push([`threw ${String(error)}`]);
        throw error;
      }
    },
    functionName: 'outbox',
    filterAttribute: outbox.eventAttribute,
    batchSize: outbox.batchSize,
    retryAttempts: outbox.retryAttempts,
    intervalMs: 50,
  });
}, 30_000);

afterAll(async () => {
  await poller?.stop();
  await client.send(new DeleteTableCommand({ TableName: tableName }));
  sqs.destroy();
  // The e2e files share a module graph per worker: the files after this one get the process's
  // own environment and SQS client back.
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
});

/** A deposit at version 1 whose write carries its event, and what else a deposit item holds. */
function depositWithEvent(): Deposit {
  const id = `dep_outbox_${randomUUID()}`;
  const now = Date.now();
  return {
    id,
    ownerKey: `owner-digest-${randomUUID()}`,
    readerKey: `reader-digest-${randomUUID()}`,
    idempotencyKey: `idem-${randomUUID()}`,
    fingerprint: 'fingerprint',
    status: 'failed',
    step: 'completed',
    version: 1,
    amountMinor: 1_300,
    currency: 'AED',
    senderId: 'acc-1',
    walletAccountId: 'wallet-aed',
    sealedCredentials: `sealed-credentials-${randomUUID()}`,
    sealedAnswers: `sealed-answers-${randomUUID()}`,
    stepCounters: { retries: 0 },
    history: [{ step: 'completed', status: 'failed', at: now, note: 'amount below minimum' }],
    createdAt: now,
    updatedAt: now,
    failure: { type: 'AMOUNT_BELOW_MINIMUM', msg: 'The amount is below the bank minimum' },
    event: {
      id: `${id}.v1`,
      type: 'deposit.failed',
      depositId: id,
      occurredAt: new Date(now).toISOString(),
      data: { status: 'failed', step: 'completed', version: 1, type: 'AMOUNT_BELOW_MINIMUM' },
    },
  };
}

/** The relay DLQ's message of this deposit, taken off the queue (received, then deleted). */
async function takeFromRelayDlq(depositId: string): Promise<string> {
  const dlqUrl = relayQueue?.dlqUrl ?? expect.fail('the stack has no outbox relay DLQ');
  return eventually(async () => {
    const { Messages = [] } = await sqs.send(
      new ReceiveMessageCommand({ QueueUrl: dlqUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }),
    );
    const mine = Messages.find((message) => message.Body?.includes(depositId));
    if (!mine) return undefined;
    await sqs.send(new DeleteMessageCommand({ QueueUrl: dlqUrl, ReceiptHandle: mine.ReceiptHandle }));
    return mine.Body ?? '';
  }, 15_000);
}

describe('the outbox relay, when the notify queue refuses an event', () => {
  it('puts the stream record whole on its own DLQ, without secrets, and reports it handled', async () => {
    // prepare: a version carrying its event, written as a create writes it (its sealed credentials
    // in their own item, which the stream filter leaves out)
    const deposit = depositWithEvent();

    // act
    expect(await new IdempotencyItems(table).createOnce(deposit)).toEqual({ created: true });
    await eventually(async () => (answers.length > 0 ? true : undefined));

    // assess: handled (no batch item failure, so the stream moves on), after a few tries
    expect(answers).toEqual([[]]);
    expect(refused).toBeGreaterThan(1);
    expect(refused).toBeLessThanOrEqual(5);
    const body = await takeFromRelayDlq(deposit.id);
    expect(JSON.parse(body)).toMatchObject({
      depositId: deposit.id,
      version: 1,
      eventId: `${deposit.id}.v1`,
      event: deposit.event,
      stream: { sequenceNumber: expect.any(String), eventId: expect.any(String) },
      error: expect.stringContaining('unreachable'),
    });
    // Nothing of the image beyond what relaying needs: no sealed credentials or answers, no digests.
    for (const secret of [
      deposit.sealedCredentials,
      deposit.sealedAnswers,
      deposit.ownerKey,
      deposit.readerKey,
      deposit.idempotencyKey,
    ])
      expect(body).not.toContain(secret);
  });

  it('relays the record again once it is redriven to the relay queue: the caller hears', async () => {
    // prepare: an event set aside in the DLQ, the cause then fixed (the stack's own SQS client is fine)
    const deposit = depositWithEvent();
    await new IdempotencyItems(table).createOnce(deposit);
    const body = await takeFromRelayDlq(deposit.id);
    const queueUrl = relayQueue?.url ?? expect.fail('the stack has no outbox relay queue');

    // act: the redrive, as `aws sqs start-message-move-task` moves it (fauxqs has no move task): the
    // message as it is, onto the relay queue
    await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: body }));
    const { deliveries } = await eventually(async () => {
      const found = await webhookDeliveries(deposit.id);
      return found.deliveries.length > 0 ? found : undefined;
    }, 20_000);

    // assess: the event the caller missed, signed, with its stable id
    expect(deliveries).toEqual([
      expect.objectContaining({
        id: `${deposit.id}.v1`,
        type: 'deposit.failed',
        depositId: deposit.id,
        verified: true,
      }),
    ]);
  });
});
