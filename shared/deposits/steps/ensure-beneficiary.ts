/**
 * ensure-beneficiary, for banks that want the wallet account registered as a beneficiary. One
 * beneficiary per user connection and wallet account, however many deposits run at once:
 *   1. our record says it exists: use it; or, its id not known yet, look it up in the list once the
 *      list shows it (whichever deposit comes then, its creator or another: never created twice);
 *   2. another deposit is creating it: come back shortly;
 *   3. else claim its creation, look for it in the list (when the bank lists new ones), and create
 *      it, asking the caller if the bank asks;
 *   4. its id is the one the bank lists for the wallet's account identifiers, never the creation's
 *      `reference`: after a creation, or when the bank says it exists (its id lost with an earlier
 *      answer), our record says it is created, and from when it is looked up in the list: at once at
 *      a bank that lists new beneficiaries; at one that hides them, after the cool-down, waited in
 *      wait-cooldown (which wakes this step);
 *   5. then on to the cool-down wait, or straight to the transfer.
 * At a bank that lists accounts masked, the id is the one new entry the list shows right after our
 * own creation; where nothing tells the wallet's entry apart, the deposit fails BENEFICIARY_AMBIGUOUS
 * (never a match by name or by a masked fragment alone: `beneficiary-match.ts`).
 * The claim's rules (waiting for another's, the look-up later) are in `beneficiary-claim.ts`.
 */
import { ProviderRefusal } from '#shared/provider/client';
import { callUnderLease } from '../connection.ts';
import {
  answerFor,
  askAgain,
  LATE_ANSWERS,
  MAX_REASKS,
  pauseForInput,
  type Question,
  SPENT_ANSWERS,
} from '../input.ts';
import { type BeneficiaryClaim, bankOf, type Deposit } from '../model.ts';
import { advance, fail } from '../transitions.ts';
import { wakeAt } from '../wake-ups.ts';
import { walletOf } from '../wallets.ts';
import {
  claimLifeMs,
  createAgain,
  LOOK_UP_AGAIN_MS,
  lookUpLater,
  stillCreating,
  useBeneficiary,
  waitForClaim,
} from './beneficiary-claim.ts';
import { fitsMasked, matchWallet } from './beneficiary-match.ts';
import type { EnsureBeneficiaryContext } from './ensure-beneficiary-context.ts';

export { LOOK_UP_AGAIN_MS } from './beneficiary-claim.ts';
export type { EnsureBeneficiaryContext } from './ensure-beneficiary-context.ts';

export async function ensureBeneficiary(woken: Deposit, ctx: EnsureBeneficiaryContext): Promise<void> {
  const now = ctx.clock.now();
  let deposit = woken;
  if (deposit.step === 'wait-cooldown') {
    // Woken for the look-up of a beneficiary the bank hid until its cool-down ends: the deposit
    // leaves wait-cooldown before the call, so that a question on the list waits at this step.
    const until = deposit.cooldownUntil ?? 0;
    if (until > now) return wakeAt(ctx, deposit, 'ensure-beneficiary', until);
    const note = 'cool-down over: looking the beneficiary up';
    const moved = await advance(ctx, deposit, { step: 'ensure-beneficiary' }, note);
    if (!moved) return;
    deposit = moved;
  }
  // Woken before the time it sleeps until (waiting for another deposit's claim): sleep on.
  const sleepsUntil = deposit.sleepsUntil ?? 0;
  if (sleepsUntil > now) return wakeAt(ctx, deposit, 'ensure-beneficiary', sleepsUntil);
  const existing = await ctx.claims.get(deposit.ownerKey, deposit.walletAccountId);
  if (existing?.state === 'created' && existing.beneficiaryId) {
    return useBeneficiary(
      ctx,
      deposit,
      existing.beneficiaryId,
      existing.cooldownUntil ?? now,
      !existing.used,
    );
  }
  const mine = existing?.depositId === deposit.id;
  // The bank has it, its id not known yet: a look-up in the list once it shows, never a creation.
  const created = existing?.state === 'created' ? existing : undefined;
  const claim: BeneficiaryClaim = created ?? {
    ownerKey: deposit.ownerKey,
    walletAccountId: deposit.walletAccountId,
    state: 'creating',
    depositId: deposit.id,
    // Held until a time of its own (its caller's answer), or refreshed now: its holder runs.
    claimedAt: mine && existing && existing.claimedAt > now ? existing.claimedAt : now,
    // Kept by whoever holds the claim next, until a list tells the creation's entry apart.
    ...(existing?.fittingBeforeCreation ? { fittingBeforeCreation: existing.fittingBeforeCreation } : {}),
  };
  if (created) {
    // Before the list shows it, another deposit waits for its creator's look-up (or its own).
    if (!mine && (created.lookupAt ?? now) > now) return waitForClaim(ctx, deposit, created);
  } else if (!mine) {
    if (!(await ctx.claims.claim(claim, now - claimLifeMs(ctx.settings)))) {
      const held = existing ?? (await ctx.claims.get(deposit.ownerKey, deposit.walletAccountId));
      return waitForClaim(ctx, deposit, held);
    }
  } else if (claim.claimedAt > (existing?.claimedAt ?? now)) {
    // Its holder runs: the claim's time is refreshed (and nothing else: a copy of this step must not
    // write over its live run's record), so that only a holder that stopped looks abandoned.
    const { ownerKey, walletAccountId } = deposit;
    if (!(await ctx.claims.refresh(ownerKey, walletAccountId, deposit.id, claim.claimedAt))) {
      return waitForClaim(ctx, deposit, await ctx.claims.get(deposit.ownerKey, deposit.walletAccountId));
    }
  }

  const lookupAt = created ? (created.lookupAt ?? now) : deposit.beneficiaryLookupAt;
  if (lookupAt !== undefined && lookupAt > now) return wakeAt(ctx, deposit, 'ensure-beneficiary', lookupAt);
  const wallet = walletOf(ctx.wallets, deposit);
  const bank = bankOf(deposit);
  // The caller's answers go to the call that asked: the list, or the creation (none once created).
  const listAnswer = await answerFor(ctx, deposit, 'list');
  const createAnswer = created ? undefined : await answerFor(ctx, deposit, 'create');
  // The list shows the beneficiary at once, or (banks that hide new ones) once its cool-down is over.
  const listFirst =
    listAnswer !== undefined || (!createAnswer && (!bank.hidesNewBeneficiaries || lookupAt !== undefined));
  // The list showed entries that may be the wallet's, masked: nothing identifies it there.
  let ambiguous = false;
  // What fitted the wallet masked before a creation whose answer was lost (its holder's, this
  // deposit's or the one whose claim it took over) tells that creation's new entry apart.
  const fittedBefore = existing?.fittingBeforeCreation;
  const called = await callUnderLease(
    ctx,
    deposit,
    'ensure-beneficiary',
    listAnswer || createAnswer ? [...existsSignals, SPENT_ANSWERS, LATE_ANSWERS] : existsSignals,
    async (credentials, renewLease): Promise<Found> => {
      if (listFirst) {
        const listed = await ctx.provider.listBeneficiaries(credentials, listAnswer);
        if (listed.status === 'user_input_required')
          return { kind: 'question', operation: 'list', question: listed };
        const match = matchWallet(listed.response.beneficiaries, wallet, fittedBefore);
        if (match?.kind === 'listed') return match;
        ambiguous = match?.kind === 'ambiguous';
        // A look-up of a beneficiary the bank has: not there (or not told apart), never created twice.
        if (lookupAt !== undefined) return { kind: ambiguous ? 'ambiguous' : 'unlisted' };
        const before = (listed.response.beneficiaries ?? [])
          .filter((entry) => fitsMasked(wallet, entry))
          .map((entry) => entry.id);
        // On the claim before the creation is sent: no death after it loses what tells ours apart.
        claim.fittingBeforeCreation = before;
        // Our claim lost between the list and the creation: another deposit creates, never two.
        if (!(await ctx.claims.update(claim))) return { kind: 'claim-lost' };
        await renewLease();
      } else if (!(await stillCreating(ctx, deposit))) {
        // Looked at again under the lease: another run of this deposit (a copy of its message) may
        // have made the creation and recorded it before giving the lease back.
        return { kind: 'claim-lost' };
      }
      const created = await ctx.provider.createBeneficiary(credentials, wallet.beneficiary, createAnswer);
      if (created.status === 'user_input_required')
        return { kind: 'question', operation: 'create', question: created };
      if (bank.hidesNewBeneficiaries) return { kind: 'created' };
      // The creation's `reference` is not taken for the beneficiary's id (the spec does not say it
      // is): the id is the one the bank lists for the wallet's account identifiers.
      await renewLease();
      const listed = await ctx.provider.listBeneficiaries(credentials);
      if (listed.status === 'user_input_required')
        return { kind: 'question', operation: 'list', question: listed, afterCreation: true };
      const match = matchWallet(listed.response.beneficiaries, wallet, claim.fittingBeforeCreation);
      return match?.kind === 'listed' ? match : { kind: 'created' };
    },
  );
  if (!called) return;
  const { value: outcome, lease } = called;
  if (!(outcome instanceof ProviderRefusal) && outcome.kind === 'claim-lost') {
    await ctx.leases.release(deposit.ownerKey, lease);
    return waitForClaim(ctx, deposit, await ctx.claims.get(deposit.ownerKey, deposit.walletAccountId));
  }
  if (!(outcome instanceof ProviderRefusal) && outcome.kind === 'question') {
    const { operation, question } = outcome;
    // A question on the list after the creation: the answered list is a look-up, never a new creation.
    const also = outcome.afterCreation ? { beneficiaryLookupAt: ctx.clock.now() } : undefined;
    const paused = await pauseForInput(ctx, deposit, 'ensure-beneficiary', question, {
      operation,
      lease,
      ...(also ? { also } : {}),
    });
    // The creation claim must not look abandoned while the bank waits for the caller.
    if (paused && !created) {
      const until = paused.pendingInput?.expiresAt ?? now;
      await ctx.claims.refresh(deposit.ownerKey, deposit.walletAccountId, deposit.id, until);
    }
    return;
  }
  // What the calls found is recorded before the lease goes back: a copy of this step waiting for the
  // lease then finds it recorded (the deposit moved on, the claim created), and asks the bank nothing.
  try {
    await settle();
  } finally {
    await ctx.leases.release(deposit.ownerKey, lease);
  }

  async function settle(): Promise<void> {
    // (Both handled above; said again here for the type of what follows.)
    if (
      !(outcome instanceof ProviderRefusal) &&
      (outcome.kind === 'question' || outcome.kind === 'claim-lost')
    )
      return;
    // The answered list ran already (its outcome lost), or the bank stopped waiting for the answers
    // to the list or the creation (nothing ran): the call again, the bank asks again.
    const answered = listAnswer !== undefined || createAnswer !== undefined;
    if (
      outcome instanceof ProviderRefusal &&
      answered &&
      (outcome.type === LATE_ANSWERS || (outcome.type === SPENT_ANSWERS && listAnswer))
    ) {
      await askAgain(ctx, deposit, 'ensure-beneficiary', outcome);
      return;
    }
    // No operation waits for the answers to the creation: it ran (its outcome lost), or the bank
    // stopped waiting before it could. The list decides (`unconfirmed`), after the wait a plain
    // creation's look-up has: read at once, a list that lags would not show it yet, and a creation
    // that ran would be made again.
    if (outcome instanceof ProviderRefusal && outcome.type === SPENT_ANSWERS) {
      const unconfirmed = { ...claim, unconfirmed: true };
      return lookUpLater(ctx, deposit, unconfirmed, 'the answered creation ran already', LOOK_UP_AGAIN_MS);
    }
    if (outcome instanceof ProviderRefusal) {
      // It exists: an earlier attempt whose answer was lost created it. If this run listed (at a time
      // the bank shows it) and did not find it, it cannot be resolved. Else look it up in the list;
      // the caller's answers belonged to the lost creation and are spent.
      if (listFirst && ambiguous) {
        await fail(ctx, deposit, 'BENEFICIARY_AMBIGUOUS', AMBIGUOUS_MSG);
        return;
      }
      if (listFirst) {
        await fail(
          ctx,
          deposit,
          'BENEFICIARY_UNRESOLVED',
          'The bank has the beneficiary but does not list it',
        );
        return;
      }
      return lookUpLater(ctx, deposit, claim, 'beneficiary exists', 0);
    }
    if (outcome.kind === 'unlisted' && created?.unconfirmed && (deposit.reasks ?? 0) < MAX_REASKS) {
      return createAgain(ctx, deposit);
    }
    if (outcome.kind === 'unlisted' || outcome.kind === 'ambiguous') {
      const [type, msg] =
        outcome.kind === 'ambiguous'
          ? (['BENEFICIARY_AMBIGUOUS', AMBIGUOUS_MSG] as const)
          : (['BENEFICIARY_UNRESOLVED', 'The bank created the beneficiary but does not list it'] as const);
      const failed = await fail(ctx, deposit, type, msg);
      // Its record goes with it: a later deposit may create it again (the bank says if it exists).
      if (failed && created) await ctx.claims.forget(deposit.ownerKey, deposit.walletAccountId);
      return;
    }
    if (outcome.kind === 'created')
      return lookUpLater(ctx, deposit, claim, 'beneficiary created', LOOK_UP_AGAIN_MS);
    const cooldownUntil = outcome.approved ? ctx.clock.now() : ctx.clock.now() + bank.coolDownMs;
    const { lookupAt: _found, fittingBeforeCreation: _told, unconfirmed: _decided, ...record } = claim;
    await ctx.claims.update({ ...record, state: 'created', beneficiaryId: outcome.id, cooldownUntil });
    return useBeneficiary(ctx, deposit, outcome.id, cooldownUntil, true);
  }
}

/**
 * The refusals that say the beneficiary exists already (the spec names none; these are the names
 * providers use): each leads to the same look-up in the list.
 */
const existsSignals = ['BENEFICIARY_ALREADY_EXISTS', 'BENEFICIARY_EXISTS', 'DUPLICATE_BENEFICIARY'] as const;

const AMBIGUOUS_MSG =
  "The bank lists the wallet's account only masked, and nothing tells which entry is the wallet's (its full IBAN, or the id of our own creation)";

/**
 * What the calls under the lease found: a question (of the list or the creation), a match, a
 * creation, or on a look-up, nothing (unlisted) or only masked entries that may be it (ambiguous);
 * or, before any creation, that another deposit took the claim over (claim-lost).
 */
type Found =
  | { kind: 'question'; operation: 'list' | 'create'; question: Question; afterCreation?: boolean }
  | { kind: 'listed'; id: string; approved: boolean }
  | { kind: 'created' }
  | { kind: 'unlisted' }
  | { kind: 'ambiguous' }
  | { kind: 'claim-lost' };
