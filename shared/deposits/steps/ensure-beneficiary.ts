/**
 * ensure-beneficiary, for banks that want the wallet account registered as a beneficiary. One
 * beneficiary per user connection and wallet account, however many deposits run at once:
 *   1. our record says it exists: use it;
 *   2. another deposit is creating it: come back shortly;
 *   3. else claim its creation, look for it in the list (when the bank lists new ones), and create
 *      it, asking the caller if the bank asks;
 *   4. its id is the one the bank lists for the wallet's account identifiers, never the creation's
 *      `reference`: after a creation, or when the bank says it exists (its id lost with an earlier
 *      answer), it is looked up in the list: at once at a bank that lists new beneficiaries; at one
 *      that hides them, after the cool-down, waited in wait-cooldown (which wakes this step);
 *   5. then on to the cool-down wait, or straight to the transfer.
 */
import { ProviderRefusal } from '#shared/provider/client';
import { type ConnectionContext, callUnderLease } from '../connection.ts';
import {
  answerFor,
  askAgain,
  LATE_ANSWERS,
  type PauseContext,
  pauseForInput,
  type Question,
  SPENT_ANSWERS,
} from '../input.ts';
import { type BeneficiaryClaim, bankOf, type Deposit, type WalletAccount } from '../model.ts';
import type { BeneficiaryClaims, Provider, SharedWakes, StepQueues, Wallets } from '../ports.ts';
import type { SendsOf, WakesOf } from '../reach.ts';
import { advance, fail, sendStep } from '../transitions.ts';
import { wakeAt } from '../wake-ups.ts';
import { isWalletAccount, walletOf } from '../wallets.ts';

export interface EnsureBeneficiaryContext
  extends ConnectionContext<SendsOf<'ensure-beneficiary'>>,
    PauseContext<WakesOf<'ensure-beneficiary'>> {
  queues: StepQueues<SendsOf<'ensure-beneficiary'>>;
  provider: Pick<Provider, 'listBeneficiaries' | 'createBeneficiary'>;
  claims: Pick<BeneficiaryClaims, 'get' | 'claim' | 'update' | 'release'>;
  wallets: Wallets;
  /** Joins a payment source's wake-up while the source holds the claim until a time of its own. */
  sharedWakes: Pick<SharedWakes, 'follow'>;
}

export async function ensureBeneficiary(deposit: Deposit, ctx: EnsureBeneficiaryContext): Promise<void> {
  const now = ctx.clock.now();
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
  const claim: BeneficiaryClaim = {
    ownerKey: deposit.ownerKey,
    walletAccountId: deposit.walletAccountId,
    state: 'creating',
    depositId: deposit.id,
    claimedAt: existing?.depositId === deposit.id ? existing.claimedAt : now,
  };
  const mine = existing?.depositId === deposit.id;
  if (!mine && !(await ctx.claims.claim(claim, now - ctx.settings.claimStaleMs))) {
    const held = existing ?? (await ctx.claims.get(deposit.ownerKey, deposit.walletAccountId));
    return waitForClaim(ctx, deposit, held);
  }

  const lookupAt = deposit.beneficiaryLookupAt;
  if (lookupAt !== undefined && lookupAt > now) return wakeAt(ctx, deposit, 'ensure-beneficiary', lookupAt);
  const wallet = walletOf(ctx.wallets, deposit);
  const bank = bankOf(deposit);
  // The caller's answers go to the call that asked: the list, or the creation.
  const listAnswer = await answerFor(ctx, deposit, 'list');
  const createAnswer = await answerFor(ctx, deposit, 'create');
  // The list shows the beneficiary at once, or (banks that hide new ones) once its cool-down is over.
  const listFirst =
    listAnswer !== undefined || (!createAnswer && (!bank.hidesNewBeneficiaries || lookupAt !== undefined));
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
        const match = walletIn(listed.response, wallet);
        if (match) return match;
        // A look-up of a beneficiary the bank has: not there, and never created twice.
        if (lookupAt !== undefined) return { kind: 'unlisted' };
        await renewLease();
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
      return walletIn(listed.response, wallet) ?? { kind: 'created' };
    },
  );
  if (!called) return;
  const { value: outcome, lease } = called;
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
    if (paused) await ctx.claims.update({ ...claim, claimedAt: paused.pendingInput?.expiresAt ?? now });
    return;
  }
  await ctx.leases.release(deposit.ownerKey, lease);

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
  // The answered creation ran already (its outcome lost): as when the bank says it exists.
  if (outcome instanceof ProviderRefusal && outcome.type === SPENT_ANSWERS) {
    return lookUpLater(ctx, deposit, claim, 'the answered creation ran already', 0);
  }
  if (outcome instanceof ProviderRefusal) {
    // It exists: an earlier attempt whose answer was lost created it. If this run listed (at a time
    // the bank shows it) and did not find it, it cannot be resolved. Else look it up in the list;
    // the caller's answers belonged to the lost creation and are spent.
    if (listFirst) {
      await fail(ctx, deposit, 'BENEFICIARY_UNRESOLVED', 'The bank has the beneficiary but does not list it');
      return;
    }
    return lookUpLater(ctx, deposit, claim, 'beneficiary exists', 0);
  }
  if (outcome.kind === 'unlisted') {
    await fail(
      ctx,
      deposit,
      'BENEFICIARY_UNRESOLVED',
      'The bank created the beneficiary but does not list it',
    );
    return;
  }
  if (outcome.kind === 'created')
    return lookUpLater(ctx, deposit, claim, 'beneficiary created', LOOK_UP_AGAIN_MS);
  const cooldownUntil = outcome.approved ? ctx.clock.now() : ctx.clock.now() + bank.coolDownMs;
  await ctx.claims.update({ ...claim, state: 'created', beneficiaryId: outcome.id, cooldownUntil });
  return useBeneficiary(ctx, deposit, outcome.id, cooldownUntil, true);
}

/**
 * The refusals that say the beneficiary exists already (the spec names none; these are the names
 * providers use): each leads to the same look-up in the list.
 */
const existsSignals = ['BENEFICIARY_ALREADY_EXISTS', 'BENEFICIARY_EXISTS', 'DUPLICATE_BENEFICIARY'] as const;

/** A bank that lists new beneficiaries but did not show a new one yet: how long until it is looked up. */
export const LOOK_UP_AGAIN_MS = 30_000;

/**
 * The beneficiary exists at the bank, but its id is not known yet: look it up in the list later,
 * holding the claim until then (other deposits sleep until the look-up instead of creating another).
 * At a bank that hides new beneficiaries, once its cool-down has certainly passed: the deposit
 * waits in wait-cooldown (its caller hears until when), which wakes this step for the look-up. At
 * one that lists them, after `soonMs`.
 */
async function lookUpLater(
  ctx: EnsureBeneficiaryContext,
  deposit: Deposit,
  claim: BeneficiaryClaim,
  why: string,
  soonMs: number,
) {
  const bank = bankOf(deposit);
  const hides = bank.hidesNewBeneficiaries;
  const at = ctx.clock.now() + (hides ? bank.coolDownMs + 1_000 : soonMs);
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
  await ctx.claims.update({ ...claim, claimedAt: at });
  if (hides) await sendStep(ctx, next, 'wait-cooldown');
  else await wakeAt(ctx, next, 'ensure-beneficiary', at);
}

/** The wallet's beneficiary in a list the bank answered, as found. */
function walletIn(
  list: { beneficiaries?: { id: string; accountNumber: string; status: string }[] | undefined },
  wallet: WalletAccount,
): Found | undefined {
  const match = list.beneficiaries?.find((candidate) => isWalletAccount(wallet, candidate));
  return match && { kind: 'listed', id: match.id, approved: match.status === 'approved' };
}

/** What the calls under the lease found: a question (of the list or the creation), a match, or a creation. */
type Found =
  | { kind: 'question'; operation: 'list' | 'create'; question: Question; afterCreation?: boolean }
  | { kind: 'listed'; id: string; approved: boolean }
  | { kind: 'created' }
  | { kind: 'unlisted' };

/**
 * Another deposit creates the beneficiary. Sleep, with one wake-up recorded in the deposit (so its
 * check time covers it): until the holder acts, if it waits for a time of its own (a look-up after a
 * cool-down, its caller's answer); else a growing while, no longer than until its claim would go
 * stale (its holder died) and can be taken over.
 */
async function waitForClaim(
  ctx: EnsureBeneficiaryContext,
  deposit: Deposit,
  held: BeneficiaryClaim | undefined,
) {
  const now = ctx.clock.now();
  const waits = deposit.claimWaits ?? 0;
  const claimedAt = held?.claimedAt ?? now;
  // The holder waits for a time of its own: a payment source has a wake-up armed for it, which this
  // deposit joins instead of arming its own; the source wakes it once ready.
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
      : Math.min(claimedAt + ctx.settings.claimStaleMs + 1_000, now + 1_000 * 2 ** Math.min(waits, 10));
  const next = await advance(ctx, deposit, { sleepsUntil: until, claimWaits: waits + 1 });
  if (next) await wakeAt(ctx, next, 'ensure-beneficiary', until);
}

/** Records the beneficiary on the deposit; then the cool-down wait (its caller hears) or the transfer. */
async function useBeneficiary(
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
