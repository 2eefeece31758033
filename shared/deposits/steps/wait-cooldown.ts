/**
 * wait-cooldown, while the bank's cool-down of a new beneficiary runs:
 *   1. arms the transfer's wake-up for the end of the cool-down: a one-shot schedule on the transfer
 *      queue for a long wait, a delayed message for a short one (the transfer looks again if early).
 * It writes nothing: the deposit already says when it resumes.
 */
import type { Deposit } from '../model.ts';
import type { WakesOf } from '../reach.ts';
import { type WakeContext, wakeAt } from '../wake-ups.ts';

export type WaitCooldownContext = WakeContext<WakesOf<'wait-cooldown'>>;

export async function waitCooldown(deposit: Deposit, ctx: WaitCooldownContext): Promise<void> {
  await wakeAt(ctx, deposit, 'transfer', deposit.cooldownUntil ?? ctx.clock.now());
}
