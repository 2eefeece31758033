/**
 * wait-cooldown, while the bank's cool-down of a new beneficiary runs:
 *   1. when a payment source of the same connection and wallet account has a wake-up armed for the
 *      same instant, still ahead, joins it: the source wakes this one when it is woken, and nothing
 *      more is armed (a source never joins its own; nobody joins one whose instant has passed, which
 *      its source may never take);
 *   2. else arms the wake-up of the step that follows the cool-down (`afterCoolDown`) for its end: a
 *      one-shot schedule for a long wait, a delayed message for a short one (the woken step looks
 *      again if early). That is the transfer; or, when the bank hides new beneficiaries and the id
 *      is not known yet, ensure-beneficiary's look-up of the beneficiary in the list. A source
 *      records its wake-up for others to join.
 * It writes nothing to the deposit: it already says when it resumes (and the sweeper looks after it
 * then, whatever happens to the wake-up it relies on). Joining or arming a source's shared wake-up is
 * its phase, on that wake-up's own item; its wake-up is a decision (`apply`).
 */

import type { Next } from '../journey/decision.ts';
import { apply } from '../journey/next.ts';
import { afterCoolDown, type Deposit, isSource } from '../model/deposit.ts';
import type { StepContext } from '../step-context.ts';

/** What wait-cooldown touches: its line in `reach.ts`. */
export type WaitCooldownContext = StepContext<'wait-cooldown'>;

export async function waitCooldown(deposit: Deposit, ctx: WaitCooldownContext): Promise<void> {
  const now = ctx.clock.now();
  const until = deposit.cooldownUntil ?? now;
  const { ownerKey, walletAccountId } = deposit;
  const follower = { depositId: deposit.id, version: deposit.version, step: afterCoolDown(deposit) };
  const joined = await ctx.sharedWakes.follow(ownerKey, walletAccountId, follower, until, now);
  const next = whileCoolingDown(deposit, joined, now);
  await apply(ctx, deposit, next);
  if (next.kind === 'wake' && isSource(deposit))
    await ctx.sharedWakes.arm(ownerKey, walletAccountId, deposit.id, until, ctx.clock.now());
}

/**
 * What follows while the cool-down runs: nothing more when the deposit joined a source's wake-up
 * for the same instant (`joined`); else the wake-up of the step after the cool-down at its end (now,
 * when the deposit has no end on record).
 */
export function whileCoolingDown(deposit: Deposit, joined: boolean, now: number): Next {
  if (joined) return { kind: 'nothing', why: "a payment source's wake-up for the same instant wakes it" };
  const at = deposit.cooldownUntil ?? now;
  return { kind: 'wake', step: afterCoolDown(deposit), at, why: 'the cool-down runs until then' };
}
