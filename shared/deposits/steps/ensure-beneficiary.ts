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
 * The step in its parts: the waits it was woken from (`pastWaits`), who creates (`whoCreates`), what
 * it asks the bank under the lease (`askTheBank`, `underLease`), and what follows from what was
 * found (`settled`, a decision that `apply` makes so before the lease goes back).
 */
import { ProviderRefusal } from '#shared/provider/client';
import { freeLease } from '../journey/lease-waits.ts';
import { apply, applyHolding, type Next } from '../journey/next.ts';
import { advance } from '../journey/transitions.ts';
import type { BeneficiaryClaim, Deposit } from '../model/deposit.ts';
import { askTheBank, type Creator, planOf } from './beneficiary-calls.ts';
import { beneficiaryUsed, claimLifeMs, claimWait, lookUpAt } from './beneficiary-claim.ts';
import { settled } from './beneficiary-found.ts';
import type { EnsureBeneficiaryContext } from './ensure-beneficiary-context.ts';

export { LOOK_UP_AGAIN_MS } from './beneficiary-claim.ts';
export type { EnsureBeneficiaryContext } from './ensure-beneficiary-context.ts';

export async function ensureBeneficiary(woken: Deposit, ctx: EnsureBeneficiaryContext): Promise<void> {
  const deposit = await pastWaits(ctx, woken);
  if (!deposit) return;
  const now = ctx.clock.now();
  const existing = await ctx.claims.get(deposit.ownerKey, deposit.walletAccountId);
  if (existing?.state === 'created' && existing.beneficiaryId) {
    const { beneficiaryId, cooldownUntil, used } = existing;
    await applyHolding(ctx, deposit, beneficiaryUsed(beneficiaryId, cooldownUntil ?? now, !used, now));
    return;
  }
  const creator = await whoCreates(ctx, deposit, existing, now);
  if ('kind' in creator) {
    await applyHolding(ctx, deposit, creator);
    return;
  }
  const lookupAt = creator.created ? (creator.created.lookupAt ?? now) : deposit.beneficiaryWork?.lookupAt;
  if (lookupAt !== undefined && lookupAt > now) {
    // On the deposit: it was woken early. On the claim alone: the deposit's write after the claim's was lost.
    const recorded = deposit.beneficiaryWork?.lookupAt === lookupAt;
    await applyHolding(
      ctx,
      deposit,
      recorded
        ? { kind: 'wake', step: 'ensure-beneficiary', at: lookupAt, why: 'its look-up' }
        : lookUpAt(deposit, lookupAt, 'beneficiary created'),
    );
    return;
  }
  const plan = await planOf(ctx, deposit, creator, lookupAt, existing?.fittingBeforeCreation);
  const called = await askTheBank(ctx, deposit, plan);
  if ('next' in called) {
    await apply(ctx, deposit, called.next);
    return;
  }
  const { value: found, lease } = called;
  if (!(found instanceof ProviderRefusal) && found.kind === 'claim-lost') {
    await freeLease(ctx, deposit.ownerKey, lease);
    const held = await ctx.claims.get(deposit.ownerKey, deposit.walletAccountId);
    await apply(ctx, deposit, await claimWait(ctx, deposit, held));
    return;
  }
  const next = settled(deposit, plan, found, ctx.clock.now());
  if (next.kind === 'ask') {
    await apply(ctx, deposit, { ...next, lease });
    return;
  }
  // What the calls found is recorded before the lease goes back (or on to the transfer, with the
  // move): a copy of this step waiting for the lease then finds it recorded (the deposit moved on,
  // the claim created), and asks the bank nothing.
  if (next.kind === 'move') {
    await apply(ctx, deposit, { ...next, lease });
    return;
  }
  try {
    await apply(ctx, deposit, next);
  } finally {
    await freeLease(ctx, deposit.ownerKey, lease);
  }
}

/**
 * The waits it was woken from: a look-up of a beneficiary the bank hid until its cool-down ends (the
 * deposit leaves wait-cooldown before the call, so that a question on the list waits at this step),
 * or the time it sleeps until (waiting for another deposit's claim). Undefined: it sleeps on.
 */
async function pastWaits(ctx: EnsureBeneficiaryContext, woken: Deposit): Promise<Deposit | undefined> {
  const now = ctx.clock.now();
  let deposit: Deposit | undefined = woken;
  if (woken.step === 'wait-cooldown') {
    const until = woken.cooldownUntil ?? 0;
    if (until > now) {
      await applyHolding(ctx, woken, {
        kind: 'wake',
        step: 'ensure-beneficiary',
        at: until,
        why: 'cooling down',
      });
      return undefined;
    }
    deposit = await advance(
      ctx,
      woken,
      { step: 'ensure-beneficiary' },
      'cool-down over: looking the beneficiary up',
    );
    if (!deposit) return undefined;
  }
  const sleepsUntil = deposit.beneficiaryWork?.sleepsUntil ?? 0;
  if (sleepsUntil <= now) return deposit;
  await applyHolding(ctx, deposit, {
    kind: 'wake',
    step: 'ensure-beneficiary',
    at: sleepsUntil,
    why: 'sleeping',
  });
  return undefined;
}

/** This deposit's claim to create it (taken, or refreshed when it holds it); else its wait for another's. */
async function whoCreates(
  ctx: EnsureBeneficiaryContext,
  deposit: Deposit,
  existing: BeneficiaryClaim | undefined,
  now: number,
): Promise<Creator | Next> {
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
  const { ownerKey, walletAccountId } = deposit;
  if (created) {
    // Before the list shows it, another deposit waits for its creator's look-up (or its own).
    if (!mine && (created.lookupAt ?? now) > now) return claimWait(ctx, deposit, created);
  } else if (!mine) {
    if (!(await ctx.claims.claim(claim, now - claimLifeMs(ctx.settings))))
      return claimWait(ctx, deposit, existing ?? (await ctx.claims.get(ownerKey, walletAccountId)));
  } else if (claim.claimedAt > (existing?.claimedAt ?? now)) {
    // Its holder runs: the claim's time is refreshed (and nothing else: a copy of this step must not
    // write over its live run's record), so that only a holder that stopped looks abandoned.
    if (!(await ctx.claims.refresh(ownerKey, walletAccountId, deposit.id, claim.claimedAt)))
      return claimWait(ctx, deposit, await ctx.claims.get(ownerKey, walletAccountId));
  }
  return { claim, created, heldBefore: mine };
}
