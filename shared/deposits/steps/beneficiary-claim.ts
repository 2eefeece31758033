/**
 * ensure-beneficiary's record of the beneficiary per user connection and wallet account, between
 * deposits: a deposit that finds another's claim waits for it (following a payment source's shared
 * wake-up when the holder waits for a time of its own); a beneficiary the bank has, whose id is not
 * known yet, is recorded as created with the instant from which the list shows it, and looked up
 * then, by its creator or by whichever deposit comes (the record outlives a creator that ends).
 * Also what ends the step with the beneficiary found (`useBeneficiary`), and a creation made again
 * (`createAgain`).
 */
import { askAgain, SPENT_ANSWERS } from '../input.ts';
import { type BeneficiaryClaim, bankOf, type Deposit } from '../model.ts';
import type { DepositSettings } from '../ports.ts';
import { advance, sendStep } from '../transitions.ts';
import { wakeAt } from '../wake-ups.ts';
import type { EnsureBeneficiaryContext } from './ensure-beneficiary-context.ts';

/**
 * How long a creation claim stays live after its holder last ran the step (its `claimedAt`, which a
 * wait of its own puts ahead: its caller's answer): the holder refreshes it on every run (each try
 * of a busy connection, each retry), and a holder that stopped moving (its message lost, its run
 * died) is re-driven by the sweeper once it has not moved for `stallAfterMs`; `claimStaleMs` more
 * covers the sweeper's period and that run. Only a holder that did not run by then is taken over: a
 * late one keeps its claim, and nobody creates the beneficiary twice.
 */
export function claimLifeMs(settings: Pick<DepositSettings, 'stallAfterMs' | 'claimStaleMs'>): number {
  return settings.stallAfterMs + settings.claimStaleMs;
}

/** A bank that lists new beneficiaries but did not show a new one yet: how long until it is looked up. */
export const LOOK_UP_AGAIN_MS = 30_000;

/**
 * The beneficiary exists at the bank, but its id is not known yet: our record says it is created,
 * and from when the list shows it (`lookupAt`), first (it is a fact, whatever becomes of this
 * deposit); this deposit looks it up then, and so does any other that comes, instead of creating
 * another. At a bank that hides new beneficiaries, once its cool-down has certainly passed: the
 * deposit waits in wait-cooldown (its caller hears until when), which wakes this step for the
 * look-up. At one that lists them, after `soonMs`.
 */
export async function lookUpLater(
  ctx: EnsureBeneficiaryContext,
  deposit: Deposit,
  claim: BeneficiaryClaim,
  why: string,
  soonMs: number,
) {
  const bank = bankOf(deposit);
  const hides = bank.hidesNewBeneficiaries;
  const at = ctx.clock.now() + (hides ? bank.coolDownMs + 1_000 : soonMs);
  await ctx.claims.update({ ...claim, state: 'created', claimedAt: at, lookupAt: at });
  const resumesAt = new Date(at).toISOString();
  const cleared = { pendingInput: undefined, sealedAnswers: undefined, beneficiaryLookupAt: at };
  const next = hides
    ? await advance(
        ctx,
        deposit,
        { ...cleared, step: 'wait-cooldown', cooldownUntil: at },
        `${why}; cooling down, looking it up at ${resumesAt}`,
        { type: 'deposit.cooling_down', data: { resumesAt } },
      )
    : await advance(ctx, deposit, cleared, `${why}; looking it up at ${resumesAt}`);
  if (!next) return;
  if (hides) await sendStep(ctx, next, 'wait-cooldown');
  else await wakeAt(ctx, next, 'ensure-beneficiary', at);
}

/**
 * Another deposit creates the beneficiary, or created it and its id shows in the list only later.
 * Sleep, with one wake-up recorded in the deposit (so its check time covers it): until the holder
 * acts, if it waits for a time of its own (a look-up after a cool-down, its caller's answer); else a
 * growing while, no longer than until its claim would go stale (its holder died) and can be taken
 * over.
 */
export async function waitForClaim(
  ctx: EnsureBeneficiaryContext,
  deposit: Deposit,
  held: BeneficiaryClaim | undefined,
) {
  const now = ctx.clock.now();
  const waits = deposit.claimWaits ?? 0;
  const claimedAt = held?.lookupAt ?? held?.claimedAt ?? now;
  // The holder waits for a time of its own: a payment source has a wake-up armed for it, which this
  // deposit joins instead of arming its own; the source wakes it once ready (or at once if it ends
  // first: woken before the time it sleeps until, the deposit arms a wake-up of its own for it).
  if (claimedAt > now) {
    const follower = {
      depositId: deposit.id,
      version: deposit.version + 1,
      step: 'ensure-beneficiary' as const,
    };
    const { ownerKey, walletAccountId } = deposit;
    if (await ctx.sharedWakes.follow(ownerKey, walletAccountId, follower, claimedAt, now)) {
      const note = `waiting for the payment source's wake-up at ${new Date(claimedAt).toISOString()}`;
      await advance(ctx, deposit, { sleepsUntil: claimedAt, claimWaits: waits + 1 }, note);
      return;
    }
  }
  const until =
    claimedAt > now
      ? claimedAt + 1_000
      : Math.min(claimedAt + claimLifeMs(ctx.settings) + 1_000, now + 1_000 * 2 ** Math.min(waits, 10));
  const next = await advance(ctx, deposit, { sleepsUntil: until, claimWaits: waits + 1 });
  if (next) await wakeAt(ctx, next, 'ensure-beneficiary', until);
}

/** Whether this deposit still holds the creation claim, creating (read under the lease). */
export async function stillCreating(ctx: EnsureBeneficiaryContext, deposit: Deposit): Promise<boolean> {
  const held = await ctx.claims.get(deposit.ownerKey, deposit.walletAccountId);
  return held?.state === 'creating' && held.depositId === deposit.id;
}

/**
 * The answered creation the bank refused as spent is not in the list: it never ran. Our record of it
 * goes (if it still has no id), and the deposit creates it again, without the spent answers (the
 * bank asks again); counted with the questions asked again, and failed past them.
 */
export async function createAgain(ctx: EnsureBeneficiaryContext, deposit: Deposit) {
  await ctx.claims.forget(deposit.ownerKey, deposit.walletAccountId);
  const refusal = { type: SPENT_ANSWERS, msg: 'The answered creation did not run' };
  const note = 'the answered creation did not run: creating it again';
  await askAgain(ctx, deposit, 'ensure-beneficiary', refusal, { beneficiaryLookupAt: undefined }, note);
}

/** Records the beneficiary on the deposit; then the cool-down wait (its caller hears) or the transfer. */
export async function useBeneficiary(
  ctx: EnsureBeneficiaryContext,
  deposit: Deposit,
  beneficiaryId: string,
  cooldownUntil: number,
  firstUse: boolean,
) {
  const coolingDown = cooldownUntil > ctx.clock.now();
  const resumesAt = new Date(cooldownUntil).toISOString();
  const step = coolingDown ? 'wait-cooldown' : 'transfer';
  const next = await advance(
    ctx,
    deposit,
    {
      step,
      beneficiaryId,
      cooldownUntil,
      sendBeneficiaryDetails: firstUse,
      beneficiaryLookupAt: undefined,
      sleepsUntil: undefined,
      claimWaits: undefined,
      pendingInput: undefined,
      sealedAnswers: undefined,
    },
    coolingDown ? `cooling down until ${resumesAt}` : undefined,
    coolingDown ? { type: 'deposit.cooling_down', data: { resumesAt } } : undefined,
  );
  if (next) await sendStep(ctx, next, step);
}
