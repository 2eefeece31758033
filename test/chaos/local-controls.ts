/**
 * The chaos harness's reach into the local stack, past its APIs: the crash points and the DynamoDB
 * faults (on the deposits gateway) and the local scheduler's schedules, over HTTP; and the two local
 * services a fault injector and an auditor need directly: the step queues (to send copies of step
 * messages, and to see what waits in them) and the deposits table (to read a deposit's version, and
 * to scan every item).
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient, GetCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import type { CrashPoint } from '#infra/local/crash-points';
import { localCredentials } from '#infra/local/credentials';
import type { DynamoDbFaultKind, DynamoDbFaultReport } from '#infra/local/dynamodb-faults';
import type { LocalStack } from '#infra/local/stack';
import { stepQueueKeys } from '#shared/topology';
import type { CrashReport } from './audit-evidence.ts';
import type { Step } from './faults.ts';
import { send } from './http.ts';
import type { Connection } from './sandbox-client.ts';

/** A deposit's step message, as the steps send them. */
export interface StepMessage {
  depositId: string;
  step: Step;
  version: number;
  kind: 'run' | 'expire-input';
  delaySeconds?: number;
}

/** A schedule of the local scheduler, as it lists them. */
export interface LocalSchedule {
  Name: string;
  GroupName: string;
  ScheduleExpression: string;
  Target: { Input?: string };
}

/** What the local stack's relay faults report (`infra/local/relay-faults.ts`). */
export interface RelayFaultReport {
  armed: string[];
  failing: string[];
  setAside: { eventId: string; depositId: string; failures: number }[];
}

export function localControls(stack: LocalStack) {
  const sqs = new SQSClient({
    endpoint: stack.sqsEndpoint,
    region: 'us-east-1',
    credentials: localCredentials,
  });
  const dynamodb = DynamoDBDocumentClient.from(
    new DynamoDBClient({
      endpoint: stack.dynamodbEndpoint,
      region: 'us-east-1',
      credentials: localCredentials,
    }),
  );
  const depositsTable = stack.tableNames.deposits;
  const queueUrl = (step: Step) => {
    const url = stack.queueUrls[stepQueueKeys[step]]?.url;
    if (!url) throw new Error(`no queue for ${step}`);
    return url;
  };
  /** Every message a queue holds, by state (fauxqs' non-destructive inspection). */
  const inspect = async (name: string) => {
    const reply = await send('GET', `${stack.sqsEndpoint}/_fauxqs/queues/${encodeURIComponent(name)}`);
    const messages = (reply.body.messages ?? {}) as Record<
      string,
      {
        body?: string;
        approximateReceiveCount?: number;
        message?: { body?: string; approximateReceiveCount?: number };
        visibilityDeadline?: number;
      }[]
    >;
    return Object.entries(messages).flatMap(([state, list]) =>
      (list ?? []).map((entry) => ({
        state,
        message: entry.message ?? entry,
        visibilityDeadline: entry.visibilityDeadline,
      })),
    );
  };

  return {
    async armCrash(connection: Connection, point: CrashPoint, options: { step?: Step; times: number }) {
      const reply = await send('POST', `${stack.depositsUrl}/_local/crash`, {
        point,
        accessToken: connection.accessToken,
        ...options,
      });
      if (reply.status !== 200) throw new Error(`crash not armed: ${reply.status}`);
    },

    async crashReport() {
      const reply = await send('GET', `${stack.depositsUrl}/_local/crash`);
      return reply.body as CrashReport;
    },

    async armDynamoDbFault(connection: Connection, kind: DynamoDbFaultKind, times: number) {
      const reply = await send('POST', `${stack.depositsUrl}/_local/dynamodb-faults`, {
        kind,
        accessToken: connection.accessToken,
        times,
      });
      if (reply.status !== 200) throw new Error(`DynamoDB fault not armed: ${reply.status}`);
    },

    /** The deposit's next event fails to relay: the relay sets it aside in its DLQ (`relay-faults.ts`). */
    async armRelayFault(depositId: string) {
      const reply = await send('POST', `${stack.depositsUrl}/_local/relay-faults`, { depositId });
      if (reply.status !== 200) throw new Error(`relay fault not armed: ${reply.status}`);
    },

    async relayFaultReport() {
      const reply = await send('GET', `${stack.depositsUrl}/_local/relay-faults`);
      return reply.body as RelayFaultReport;
    },

    /**
     * The operator's redrive of the relay's DLQ to the relay's queue, as docs/operating.md's runbook
     * does it (fauxqs has no message move task: each message is received, sent on, deleted). Answers
     * how many it moved.
     */
    async redriveRelayDlq() {
      const queue = stack.queueUrls.outboxRelay;
      if (!queue) throw new Error('no outbox relay queue');
      let moved = 0;
      for (;;) {
        const { Messages = [] } = await sqs.send(
          new ReceiveMessageCommand({ QueueUrl: queue.dlqUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 0 }),
        );
        if (Messages.length === 0) return moved;
        for (const message of Messages) {
          await sqs.send(new SendMessageCommand({ QueueUrl: queue.url, MessageBody: message.Body ?? '' }));
          await sqs.send(
            new DeleteMessageCommand({ QueueUrl: queue.dlqUrl, ReceiptHandle: message.ReceiptHandle }),
          );
          moved += 1;
        }
      }
    },

    async dynamoDbFaultReport() {
      const reply = await send('GET', `${stack.depositsUrl}/_local/dynamodb-faults`);
      return reply.body as DynamoDbFaultReport;
    },

    async schedules() {
      const reply = await send('GET', `${stack.schedulerEndpoint}/_local/schedules`);
      return reply.body as { schedules: LocalSchedule[]; fired: { name: string; early: boolean }[] };
    },

    async fireSchedule(schedule: LocalSchedule) {
      const reply = await send(
        'POST',
        `${stack.schedulerEndpoint}/_local/schedules/${encodeURIComponent(schedule.Name)}/fire?groupName=${encodeURIComponent(schedule.GroupName)}`,
      );
      return reply.status;
    },

    /** Deletes a schedule, as if it were lost (a source that loses its own wake-up). */
    async deleteSchedule(schedule: LocalSchedule) {
      const reply = await send(
        'DELETE',
        `${stack.schedulerEndpoint}/schedules/${encodeURIComponent(schedule.Name)}?groupName=${encodeURIComponent(schedule.GroupName)}`,
      );
      return reply.status;
    },

    /**
     * Moves the local clock forward (the sandbox's banks, the steps, the scheduler all follow);
     * answers the local time just before and just after the move.
     */
    async advanceClock(seconds: number) {
      const before = await send('GET', `${stack.depositsUrl}/_local/clock`);
      const reply = await send('POST', `${stack.depositsUrl}/_local/clock`, { advanceSeconds: seconds });
      if (reply.status !== 200) throw new Error(`clock not moved: ${reply.status}`);
      return { from: Date.parse(String(before.body.now)), to: Date.parse(String(reply.body.now)) };
    },

    /** Step messages sent straight to the step queues, each after its own delay. */
    async sendStepMessages(messages: StepMessage[]) {
      const byStep = new Map<Step, StepMessage[]>();
      for (const message of messages)
        byStep.set(message.step, [...(byStep.get(message.step) ?? []), message]);
      for (const [step, batch] of byStep) {
        for (let start = 0; start < batch.length; start += 10) {
          const sent = await sqs.send(
            new SendMessageBatchCommand({
              QueueUrl: queueUrl(step),
              Entries: batch.slice(start, start + 10).map(({ delaySeconds, ...message }, index) => ({
                Id: String(index),
                MessageBody: JSON.stringify(message),
                DelaySeconds: delaySeconds ?? 0,
              })),
            }),
          );
          if (sent.Failed?.length) throw new Error(`step messages not sent: ${JSON.stringify(sent.Failed)}`);
        }
      }
    },

    /** Messages in each queue and its DLQ (visible and in flight), by topology key. */
    async queueDepths() {
      const depth = async (url: string) => {
        const { Attributes } = await sqs.send(
          new GetQueueAttributesCommand({
            QueueUrl: url,
            AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
          }),
        );
        return (
          Number(Attributes?.ApproximateNumberOfMessages ?? 0) +
          Number(Attributes?.ApproximateNumberOfMessagesNotVisible ?? 0)
        );
      };
      // What a DLQ holds (step messages: a deposit's id, step, version and kind; nothing secret), so a
      // run that ends with one says which deposit's step threw on every receive.
      const dead = async (dlqUrl: string) =>
        (await inspect(decodeURIComponent(dlqUrl.split('/').at(-1) ?? ''))).map(
          ({ message }) => message.body ?? '',
        );
      const depths: Record<string, { queue: number; dlq: number; dead?: string[] }> = {};
      for (const [key, { url, dlqUrl }] of Object.entries(stack.queueUrls)) {
        const dlq = await depth(dlqUrl);
        depths[key] = { queue: await depth(url), dlq, ...(dlq > 0 ? { dead: await dead(dlqUrl) } : {}) };
      }
      return depths;
    },

    /**
     * Where the messages naming a deposit sit in a queue and its DLQ (fauxqs' non-destructive
     * inspection): `queue:ready`, `queue:delayed`, `queue:inflight(n, visible in s)`, `dlq:...`.
     */
    async messagesOf(queueName: string, depositId: string) {
      const found: string[] = [];
      for (const [label, name] of [
        ['queue', queueName],
        ['dlq', `${queueName}-dlq`],
      ] as const) {
        for (const { state, message, visibilityDeadline } of await inspect(name)) {
          if (!message.body?.includes(depositId)) continue;
          const visibleIn = visibilityDeadline
            ? ` visible in ${Math.round((visibilityDeadline - Date.now()) / 1000)} s`
            : '';
          found.push(`${label}:${state}(received ${message.approximateReceiveCount ?? 0}${visibleIn})`);
        }
      }
      return found;
    },

    /** The deposit's item in the deposits table (its version, which the API does not show). */
    async depositItem(depositId: string) {
      const { Item } = await dynamodb.send(
        new GetCommand({
          TableName: depositsTable,
          Key: { pk: `DEPOSIT#${depositId}`, sk: 'DEPOSIT' },
          ConsistentRead: true,
        }),
      );
      return Item as DepositItem | undefined;
    },

    /** Every item of the deposits table. */
    async scanDeposits() {
      const items: TableItem[] = [];
      let start: Record<string, unknown> | undefined;
      do {
        const page = await dynamodb.send(
          new ScanCommand({ TableName: depositsTable, ExclusiveStartKey: start, ConsistentRead: true }),
        );
        items.push(...((page.Items ?? []) as TableItem[]));
        start = page.LastEvaluatedKey;
      } while (start);
      return items;
    },

    close() {
      sqs.destroy();
      dynamodb.destroy();
    },
  };
}

/** Any item of the deposits table. */
export type TableItem = { pk: string; sk: string } & Record<string, unknown>;

/** What the harness reads of a deposit's item. */
export interface DepositItem {
  pk: string;
  sk: string;
  id: string;
  status: string;
  step: Step | 'completed';
  version: number;
  reference?: string;
  failure?: { type: string; msg: string };
  cooldownUntil?: number;
  /** Its way to the beneficiary: a look-up time, a sleep on another deposit's claim. */
  beneficiaryWork?: { lookupAt?: number; sleepsUntil?: number };
  checkAt?: number;
  /** Its transfer: `attempt` is present while a transfer call may be in flight (money may have moved). */
  transfer?: { attempt?: { at: number; answering: boolean } };
  sealedCredentials?: string;
  sealedAnswers?: string;
  amountMinor: number;
  currency: string;
  history: { step: string; status: string; at: number; note?: string }[];
}
