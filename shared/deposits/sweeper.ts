/**
 * The sweeper, on a recurring schedule: a lost message or schedule must not strand a deposit.
 *   1. finds the deposits in flight whose check time has passed (the sparse index);
 *   2. sends each its own step's message again (duplicates are dropped by the version), or, for a
 *      deposit waiting for its caller, the expiry of the question.
 */

import type { Clock } from '#shared/clock';
import type { Deposit } from './model.ts';
import type { DueDeposits, StepQueues } from './ports.ts';
import type { SendsOf } from './reach.ts';

export interface SweepContext {
  due: DueDeposits;
  queues: StepQueues<SendsOf<'sweeper'>>;
  clock: Pick<Clock, 'now'>;
}

/** Re-drives the deposits due a look; answers how many. */
export async function sweep(ctx: SweepContext, limit = 100): Promise<number> {
  const stalled = await ctx.due.findDue(ctx.clock.now(), limit);
  for (const deposit of stalled) await redrive(ctx, deposit);
  return stalled.length;
}

async function redrive(ctx: SweepContext, deposit: Deposit) {
  if (deposit.step === 'completed') return;
  const message = { depositId: deposit.id, step: deposit.step, version: deposit.version };
  if (deposit.status === 'user_input_required') {
    await ctx.queues.send({ ...message, kind: 'expire-input' });
  } else if (deposit.status === 'initialized') {
    await ctx.queues.send({ ...message, kind: 'run' });
  }
}
