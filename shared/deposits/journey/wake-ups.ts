/**
 * Wake-ups: a step message delivered at a time. Waits longer than `longWaitMs` become a one-shot
 * schedule that targets the queue of the step it wakes; shorter ones a delayed message (SQS delays
 * at most 15 minutes). Schedule names are deterministic, so arming twice is arming once.
 */

import type { Clock } from '#shared/clock';
import type { Deposit, WorkStep } from '../model/deposit.ts';
import { messageFor, type StepMessageTo } from '../model/messages.ts';
import type { SharedWakes } from '../ports/connection.ts';
import type { StepQueues, WakeScheduler } from '../ports/messaging.ts';
import type { DepositSettings } from '../ports/settings.ts';

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
  return deliverAt(ctx, wakeName(deposit.id, step, until), messageFor(deposit, step), until);
}

/** What waking the followers of a payment source's shared wake-up needs. */
export interface FollowersContext {
  sharedWakes: Pick<SharedWakes, 'take'>;
  queues: StepQueues<'transfer' | 'ensure-beneficiary'>;
}

/**
 * Ends the shared wake-up of `source` and wakes the deposits (and sources) that followed it, each at
 * the step and version it waits at: at its instant when the source is ready, or at once when the
 * source is cancelled (woken early, each waits again, on a wake-up of its own).
 */
export async function wakeFollowers(ctx: FollowersContext, source: Deposit) {
  const followers = await ctx.sharedWakes.take(source.ownerKey, source.walletAccountId, source.id);
  for (const { depositId, step, version } of followers) {
    if (step === 'transfer' || step === 'ensure-beneficiary') {
      await ctx.queues.send({ depositId, step, version, kind: 'run' });
    }
  }
}

/** The schedule name of a wake-up: one per deposit, step and second. */
export function wakeName(depositId: string, step: WorkStep, until: number): string {
  return `${depositId}-${step}-${Math.floor(until / 1000)}`;
}

/** The schedule name of the expiry of the question a deposit asked at `version`. */
export function expiryName(depositId: string, version: number): string {
  return `${depositId}-input-${version}`;
}

/**
 * Every schedule this deposit may have armed for what it now waits for: its cool-down's end (for
 * the transfer, or the look-up of its beneficiary), a look-up time, a sleep on another deposit's
 * claim, its question's expiry. Those that were short waits were messages, not schedules.
 */
export function scheduleNamesOf(deposit: Deposit): string[] {
  const { lookupAt, sleepsUntil } = deposit.beneficiaryWork ?? {};
  const times = [deposit.cooldownUntil, lookupAt, sleepsUntil].filter(
    (time): time is number => time !== undefined,
  );
  const woken: WorkStep[] = ['ensure-beneficiary', 'transfer'];
  const names = times.flatMap((time) => woken.map((step) => wakeName(deposit.id, step, time)));
  if (deposit.pendingInput) names.push(expiryName(deposit.id, deposit.version));
  return [...new Set(names)];
}

/** A wait as an SQS delay: whole seconds, rounded up, at most 15 minutes. */
export function delaySeconds(waitMs: number): number {
  return Math.min(MAX_SQS_DELAY_SECONDS, Math.max(0, Math.ceil(waitMs / 1000)));
}
