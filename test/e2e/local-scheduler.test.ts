/**
 * The local EventBridge Scheduler speaks the API subset the production adapter relies on, to the real
 * SDK client: CreateSchedule (one-shot `at(...)`, UTC, deleted after it fires), GetSchedule,
 * DeleteSchedule, and the service's errors; and it fires by sending the target's input to SQS.
 */
import { randomUUID } from 'node:crypto';
import {
  ConflictException,
  CreateScheduleCommand,
  DeleteScheduleCommand,
  GetScheduleCommand,
  ResourceNotFoundException,
  SchedulerClient,
} from '@aws-sdk/client-scheduler';
import {
  CreateQueueCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { describe, expect, inject, it } from 'vitest';
import { atExpression } from '#shared/adapters/scheduler';
import { eventually } from '../support/sandbox.ts';

const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };
const scheduler = new SchedulerClient({
  endpoint: inject('schedulerEndpoint'),
  region: 'us-east-1',
  credentials,
});
const sqs = new SQSClient({ endpoint: inject('sqsEndpoint'), region: 'us-east-1', credentials });

async function targetQueue() {
  const { QueueUrl = '' } = await sqs.send(new CreateQueueCommand({ QueueName: `target-${randomUUID()}` }));
  const { Attributes } = await sqs.send(
    new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['QueueArn'] }),
  );
  return { url: QueueUrl, arn: Attributes?.QueueArn ?? '' };
}

function create(name: string, at: Date, queueArn: string, input: string) {
  return scheduler.send(
    new CreateScheduleCommand({
      Name: name,
      GroupName: 'tests',
      ScheduleExpression: atExpression(at),
      ScheduleExpressionTimezone: 'UTC',
      FlexibleTimeWindow: { Mode: 'OFF' },
      ActionAfterCompletion: 'DELETE',
      Target: { Arn: queueArn, RoleArn: 'arn:aws:iam::000000000000:role/local', Input: input },
    }),
  );
}

describe('local EventBridge Scheduler', () => {
  it('creates, describes, refuses a duplicate, and deletes a schedule', async () => {
    const queue = await targetQueue();
    const name = `s-${randomUUID()}`;
    const at = new Date(Date.now() + 3_600_000);

    const created = await create(name, at, queue.arn, '{"hello":1}');
    const described = await scheduler.send(new GetScheduleCommand({ Name: name, GroupName: 'tests' }));
    const duplicate = await create(name, at, queue.arn, '{}').catch((error: unknown) => error);
    await scheduler.send(new DeleteScheduleCommand({ Name: name, GroupName: 'tests' }));
    const gone = await scheduler
      .send(new GetScheduleCommand({ Name: name, GroupName: 'tests' }))
      .catch((e: unknown) => e);

    expect(created.ScheduleArn).toContain(`schedule/tests/${name}`);
    expect(described).toMatchObject({
      Name: name,
      ScheduleExpression: atExpression(at),
      ActionAfterCompletion: 'DELETE',
    });
    expect(described.Target?.Input).toBe('{"hello":1}');
    expect(duplicate).toBeInstanceOf(ConflictException);
    expect(gone).toBeInstanceOf(ResourceNotFoundException);
  });

  it('fires at the time given, sends the input to the target queue, and deletes itself', async () => {
    const queue = await targetQueue();
    const name = `s-${randomUUID()}`;
    const input = JSON.stringify({ depositId: 'dep_x', step: 'transfer', version: 3 });

    await create(name, new Date(Date.now() + 1_000), queue.arn, input);
    const message = await eventually(async () => {
      const { Messages } = await sqs.send(
        new ReceiveMessageCommand({ QueueUrl: queue.url, WaitTimeSeconds: 1 }),
      );
      return Messages?.[0];
    }, 10_000);
    const after = await scheduler
      .send(new GetScheduleCommand({ Name: name, GroupName: 'tests' }))
      .catch((e: unknown) => e);

    expect(message.Body).toBe(input);
    expect(after).toBeInstanceOf(ResourceNotFoundException);
  });

  it('rounds `at(...)` up to the whole second, so a wake-up is never early', () => {
    expect(atExpression(new Date('2026-11-22T10:00:00.001Z'))).toBe('at(2026-11-22T10:00:01)');
    expect(atExpression(new Date('2026-11-22T10:00:00.000Z'))).toBe('at(2026-11-22T10:00:00)');
  });
});
