/**
 * wait-cooldown, while the bank's cool-down of a new beneficiary runs:
 *   1. arms the wake-up of the step that follows the cool-down (`afterCoolDown`) for its end: a
 *      one-shot schedule for a long wait, a delayed message for a short one (the woken step looks
 *      again if early). That is the transfer; or, when the bank hides new beneficiaries and the id
 *      is not known yet, ensure-beneficiary's look-up of the beneficiary in the list.
 * It writes nothing: the deposit already says when it resumes.
 */
import { afterCoolDown, type Deposit } from '../model.ts';
import type { WakesOf } from '../reach.ts';
import { type WakeContext, wakeAt } from '../wake-ups.ts';

export type WaitCooldownContext = WakeContext<WakesOf<'wait-cooldown'>>;

export async function waitCooldown(deposit: Deposit, ctx: WaitCooldownContext): Promise<void> {
  await wakeAt(ctx, deposit, afterCoolDown(deposit), deposit.cooldownUntil ?? ctx.clock.now());
}
