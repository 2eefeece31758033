/**
 * EventBridge Scheduler: one-shot `at(...)` schedules (UTC, deleted after they fire) that send a step
 * message to the queue of the step it wakes. Names are deterministic, so arming twice is arming once.
 */
import {
  ConflictException,
  CreateScheduleCommand,
  DeleteScheduleCommand,
  ResourceNotFoundException,
  type SchedulerClient,
} from '@aws-sdk/client-scheduler';
import type { WorkStep } from '#shared/deposits/model/deposit';
import type { StepMessageTo } from '#shared/deposits/model/messages';
import type { WakeCancels, WakeScheduler } from '#shared/deposits/ports/messaging';
import { currentTrace } from '#shared/tracing';

export interface ScheduleTarget<S extends WorkStep> {
  groupName: string;
  /** The ARNs of the queues this handler's wake-ups go to, by step. */
  queueArns: Record<S, string>;
  /** The role the scheduler assumes to send to it. */
  roleArn: string;
  /** Where the scheduler sends what it cannot deliver. */
  deadLetterArn?: string | undefined;
}

/** `at(...)` takes whole seconds: round up, so a wake-up is never early. */
export function atExpression(at: Date): string {
  const seconds = new Date(Math.ceil(at.getTime() / 1000) * 1000);
  return `at(${seconds.toISOString().slice(0, 19)})`;
}

export class EventBridgeWakeScheduler<S extends WorkStep> implements WakeScheduler<S> {
  constructor(
    private readonly client: SchedulerClient,
    private readonly target: ScheduleTarget<S>,
  ) {}

  async scheduleAt(name: string, at: Date, message: StepMessageTo<S>): Promise<void> {
    const queueArn = this.target.queueArns[message.step];
    if (!queueArn) throw new Error(`this handler does not wake the ${message.step} step`);
    try {
      await this.client.send(
        new CreateScheduleCommand({
          Name: name,
          GroupName: this.target.groupName,
          ScheduleExpression: atExpression(at),
          ScheduleExpressionTimezone: 'UTC',
          FlexibleTimeWindow: { Mode: 'OFF' },
          ActionAfterCompletion: 'DELETE',
          Target: {
            Arn: queueArn,
            RoleArn: this.target.roleArn,
            // The deposit's trace in the message itself: a schedule's target sets no trace header.
            Input: JSON.stringify({ ...message, trace: message.trace ?? currentTrace() }),
            RetryPolicy: { MaximumRetryAttempts: 10, MaximumEventAgeInSeconds: 86_400 },
            ...(this.target.deadLetterArn ? { DeadLetterConfig: { Arn: this.target.deadLetterArn } } : {}),
          },
        }),
      );
    } catch (error) {
      // Already armed by an earlier attempt of this step.
      if (!(error instanceof ConflictException)) throw error;
    }
  }
}

/** Deletes the wake-up schedules of a deposit that will not be woken: one already gone is fine. */
export class EventBridgeWakeCancels implements WakeCancels {
  constructor(
    private readonly client: SchedulerClient,
    private readonly groupName: string,
  ) {}

  async cancel(names: readonly string[]): Promise<void> {
    await Promise.all(
      names.map(async (name) => {
        try {
          await this.client.send(new DeleteScheduleCommand({ Name: name, GroupName: this.groupName }));
        } catch (error) {
          if (!(error instanceof ResourceNotFoundException)) throw error;
        }
      }),
    );
  }
}
