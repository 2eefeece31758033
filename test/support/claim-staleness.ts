/**
 * What the claim-staleness files share: the bank's list and creation answers, a connection kept
 * busy, the deposit's own claim on record, a copy of the step reading an older claim.
 */
import type { BeneficiaryClaim, Deposit } from '#shared/deposits/model/deposit';
import { ensureBeneficiary } from '#shared/deposits/steps/ensure-beneficiary';
import { answers, banks, claimKey, ownerKey, type World, walletListing } from './deposit-world.ts';

/** The bank answers a list (empty), the creation, and the list that names `id`. */
export function creates(w: World, id: string) {
  w.provider
    .answer('listBeneficiaries', walletListing(), walletListing(id))
    .answer('createBeneficiary', answers.done({ jobID: 'j', success: true, status: 'done' }));
}

/** Another operation keeps the user's connection (its lease) for a long while. */
export function connectionBusy(w: World) {
  w.table.leaseItems.set(ownerKey, { holder: 'another-operation', until: w.clock.now() + 86_400_000 });
}

export function atStep(w: World) {
  return w.deposit({ step: 'ensure-beneficiary', bank: banks.beneficiary });
}

/** The deposit's own claim, creating, on record: what a copy of its step reads first. */
export function claimedBy(w: World, deposit: Deposit): BeneficiaryClaim {
  const before = {
    ownerKey,
    walletAccountId: 'wallet-aed',
    state: 'creating' as const,
    depositId: deposit.id,
    claimedAt: w.clock.now(),
  };
  w.table.claimItems.set(claimKey, { ...before });
  return before;
}

/** A copy of the step whose first read of the claim is `before` (from before the live run's record). */
export function readingFirst(
  copy: ReturnType<World['contexts']['ensureBeneficiary']>,
  before: BeneficiaryClaim,
) {
  let staleRead = true;
  const get = copy.claims.get;
  copy.claims = {
    ...copy.claims,
    get: async (...args) => {
      if (!staleRead) return get(...args);
      staleRead = false;
      return { ...before };
    },
  };
  return Object.assign(copy, { staleReadTaken: () => !staleRead });
}

/** Runs the step for a deposit as stored now. */
export function run(w: World, deposit: Deposit) {
  return ensureBeneficiary(w.table.current(deposit.id), w.contexts.ensureBeneficiary());
}
