/**
 * ensure-beneficiary's record of the beneficiary per user connection and wallet account, between
 * deposits: a deposit that finds another's claim waits for it (following a payment source's shared
 * wake-up when the holder waits for a time of its own); a beneficiary the bank has, whose id is not
 * known yet, is recorded as created with the instant from which the list shows it, and looked up
 * then, by its creator or by whichever deposit comes (the record outlives a creator that ends).
 * Also what ends the step with the beneficiary found (`beneficiaryUsed`), and a creation made again
 * (`createdAgain`). Each is a decision (`Next`) that `apply` makes so; following a payment source's
 * shared wake-up is a write on that wake-up's own item, made before the decision (`claimWait`).
 */
import { SPENT_ANSWERS } from '../journey/input.ts';
import type { Next } from '../journey/next.ts';
import { type BeneficiaryClaim, bankOf, type Deposit } from '../model/deposit.ts';
import { beneficiaryWorkWith } from '../model/deposit-work.ts';
import type { DepositSettings } from '../ports/settings.ts';
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
export function lookedUpLater(
  deposit: Deposit,
  claim: BeneficiaryClaim,
  why: string,
  soonMs: number,
  now: number,
): Next {
  const bank = bankOf(deposit);
  const at = now + (bank.hidesNewBeneficiaries ? bank.coolDownMs + 1_000 : soonMs);
  const before = [
    {
      claims: 'update' as const,
      claim: { ...claim, state: 'created' as const, claimedAt: at, lookupAt: at },
    },
  ];
  return { ...lookUpAt(deposit, at, why), before };
}

/**
 * The deposit waits for its look-up of the beneficiary at `at`, recorded on it (its check time covers
 * the wait): at a bank that hides new beneficiaries, as a cool-down its caller hears of. Also what a
 * run does that finds the look-up on the claim alone: the claim is written first, and a run that died
 * before the deposit's own write (or whose write was refused) left the wait unrecorded.
 */
export function lookUpAt(deposit: Deposit, at: number, why: string): Extract<Next, { kind: 'move' }> {
  const resumesAt = new Date(at).toISOString();
  const cleared = {
    pendingInput: undefined,
    sealedAnswers: undefined,
    ...beneficiaryWorkWith(deposit, { lookupAt: at }),
  };
  if (!bankOf(deposit).hidesNewBeneficiaries) {
    const note = `${why}; looking it up at ${resumesAt}`;
    return { kind: 'move', changes: cleared, note, wake: { step: 'ensure-beneficiary', at } };
  }
  return {
    kind: 'move',
    changes: { ...cleared, step: 'wait-cooldown', cooldownUntil: at },
    note: `${why}; cooling down, looking it up at ${resumesAt}`,
    event: { type: 'deposit.cooling_down', data: { resumesAt } },
    send: { step: 'wait-cooldown' },
  };
}

/**
 * Another deposit creates the beneficiary, or created it and its id shows in the list only later.
 * Sleep, with one wake-up recorded in the deposit (so its check time covers it): until the holder
 * acts, if it waits for a time of its own (a look-up after a cool-down, its caller's answer); else a
 * while that grows with the claim's silence, no longer than until its claim would go stale (its
 * holder died) and can be taken over.
 */
export async function claimWait(
  ctx: EnsureBeneficiaryContext,
  deposit: Deposit,
  held: BeneficiaryClaim | undefined,
): Promise<Next> {
  const now = ctx.clock.now();
  const waits = deposit.beneficiaryWork?.claimWaits ?? 0;
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
      const changes = beneficiaryWorkWith(deposit, { sleepsUntil: claimedAt, claimWaits: waits + 1 });
      return { kind: 'move', changes, note };
    }
  }
  // Else as long again as the claim has gone unrefreshed, and a second (1 s, 2 s, 4 s, ... from its
  // last refresh), up to its staleness: a holder just past its own time (its question expired, its
  // end on its way) is looked at again at once, a silent one less and less often. Each claim starts
  // the growth over: a count of this deposit's waits would carry the waits for one holder on to the
  // next (minutes, for a claim given up seconds before).
  const until =
    claimedAt > now
      ? claimedAt + 1_000
      : Math.min(claimedAt + claimLifeMs(ctx.settings) + 1_000, now + (now - claimedAt) + 1_000);
  const changes = beneficiaryWorkWith(deposit, { sleepsUntil: until, claimWaits: waits + 1 });
  return { kind: 'move', changes, wake: { step: 'ensure-beneficiary', at: until } };
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
export function createdAgain(deposit: Pick<Deposit, 'beneficiaryWork'>): Next {
  return {
    kind: 'ask-again',
    step: 'ensure-beneficiary',
    refusal: { type: SPENT_ANSWERS, msg: 'The answered creation did not run' },
    changes: beneficiaryWorkWith(deposit, { lookupAt: undefined }),
    note: 'the answered creation did not run: creating it again',
    before: [{ claims: 'forget' }],
  };
}

/** Records the beneficiary on the deposit; then the cool-down wait (its caller hears) or the transfer. */
export function beneficiaryUsed(
  beneficiaryId: string,
  cooldownUntil: number,
  firstUse: boolean,
  now: number,
): Next {
  const coolingDown = cooldownUntil > now;
  const resumesAt = new Date(cooldownUntil).toISOString();
  const step = coolingDown ? 'wait-cooldown' : 'transfer';
  return {
    kind: 'move',
    changes: {
      step,
      beneficiaryId,
      cooldownUntil,
      // Found: of the way to it, only whether the transfer sends its details stays.
      beneficiaryWork: { sendDetails: firstUse },
      pendingInput: undefined,
      sealedAnswers: undefined,
    },
    ...(coolingDown
      ? {
          note: `cooling down until ${resumesAt}`,
          event: { type: 'deposit.cooling_down' as const, data: { resumesAt } },
        }
      : {}),
    send: { step },
  };
}
