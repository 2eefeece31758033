/**
 * Wake-ups: a step message delivered at a time. Waits longer than `longWaitMs` become a one-shot
 * schedule that targets the queue of the step it wakes; shorter ones a delayed message (SQS delays
 * at most 15 minutes). Schedule names are deterministic, so arming twice is arming once.
 */

import type { Clock } from '#shared/clock';
import type { Deposit, StepMessageTo, WorkStep } from './model.ts';
import type { DepositSettings, StepQueues, WakeScheduler } from './ports.ts';

export const MAX_SQS_DELAY_SECONDS = 900;

export interface WakeContext<S extends WorkStep> {
  clock: Clock;
  settings: DepositSettings;
  queues: StepQueues<S>;
  scheduler: WakeScheduler<S>;
}

/** Sends `message` at `until`, under the schedule `name` when the wait is long. */
export async function deliverAt<S extends WorkStep>(
  ctx: WakeContext<S>,
  name: string,
  message: StepMessageTo<S>,
  until: number,
) {
  const wait = until - ctx.clock.now();
  if (wait > ctx.settings.longWaitMs) {
    await ctx.scheduler.scheduleAt(name, new Date(until), message);
  } else {
    await ctx.queues.send(message, delaySeconds(wait));
  }
}

/** Wakes `step` of this version of the deposit at `until`. */
export function wakeAt<S extends WorkStep>(ctx: WakeContext<S>, deposit: Deposit, step: S, until: number) {
  return deliverAt(
    ctx,
    `${deposit.id}-${step}-${Math.floor(until / 1000)}`,
    { depositId: deposit.id, step, version: deposit.version, kind: 'run' },
    until,
  );
}

/** A wait as an SQS delay: whole seconds, rounded up, at most 15 minutes. */
export function delaySeconds(waitMs: number): number {
  return Math.min(MAX_SQS_DELAY_SECONDS, Math.max(0, Math.ceil(waitMs / 1000)));
}
