/**
 * The provider faults of the bank itself: it keeps a transfer pending past the poll limit, changes
 * mid-run (a cool-down started again, our beneficiary deleted, its minimum raised, our beneficiary's
 * details no longer matching), takes a transfer's answers as spent, or is down for a user.
 */

import type { Dialect } from '#shared/provider/interface/dialects';
import { findBank } from '#shared/sandbox/catalog';
import { anyBank, type FaultKind, transferPathOn, withBeneficiaries } from './fault-kinds-common.ts';
import type { FaultRule } from './faults.ts';
import type { Bank } from './plan.ts';

/** Whether the bank asks its caller a question on the transfer (so the transfer is answered). */
const asksOnTransfer = (bank: Bank) => (findBank(bank.bankId)?.asks.transfer?.length ?? 0) > 0;

/** The rule of `metadata-down`: every metadata read fails, past the retry limit. */
export const metadataDown = (paths: Dialect['paths']): FaultRule => ({
  path: paths.metadata,
  outcome: 'error',
  status: 503,
  times: 60,
});

/** The bank's kinds, their rules at their paths in `paths`. */
export function bankKinds(paths: Dialect['paths']): FaultKind[] {
  const transferPath = transferPathOn(paths);
  return [
    {
      // The bank keeps the transfer `initialized` past the poll limit (the chaos stack's: a few reads):
      // its outcome is given up as unknown, and resolved from the ledger after the run.
      kind: 'transfer-pending-past-limit',
      readsBack: true,
      applies: withBeneficiaries,
      rule: () => ({ path: paths.operationGet, outcome: 'pending', times: 40 }),
      weight: 0.3,
    },
    {
      // The bank changed mid-run: its cool-down of our beneficiary started again. The transfer is
      // refused (the message names no instant: a wait of `COOL_DOWN_RETRY_SECONDS`), and our record's cool-down corrected.
      kind: 'bank-cool-down-again',
      applies: withBeneficiaries,
      rule: () => ({
        path: paths.transferCreate,
        outcome: 'refusal',
        status: 422,
        type: 'BENEFICIARY_COOL_DOWN_PERIOD',
        times: 1,
      }),
      weight: 0.4,
    },
    {
      // ... our beneficiary deleted at the bank: the deposit registers it again (once).
      kind: 'bank-beneficiary-gone',
      // Not where the list masks accounts: the refusal leaves the beneficiary at the bank, where the
      // registration again finds it existing and, masked, cannot tell it from another (a deletion would).
      // Nor at the day-long bank: registered again, it waits another day, past the clock's one jump.
      applies: (bank) => bank.beneficiaries && !bank.longCoolDown && !findBank(bank.bankId)?.masksAccounts,
      rule: () => ({
        path: paths.transferCreate,
        outcome: 'refusal',
        status: 404,
        type: 'INVALID_BENEFICIARY_ID',
        times: 1,
      }),
      weight: 0.4,
    },
    {
      // ... its minimum raised: the transfer refused, the remembered metadata forgotten.
      kind: 'bank-minimum-raised',
      ends: true,
      applies: anyBank,
      rule: (_random, bank) => ({
        path: transferPath(bank),
        outcome: 'refusal',
        status: 422,
        type: 'AMOUNT_BELOW_MINIMUM',
        times: 1,
      }),
      weight: 0.3,
    },
    {
      // ... our beneficiary's details no longer match: the deposit fails, our record is forgotten.
      kind: 'bank-details-mismatch',
      ends: true,
      applies: withBeneficiaries,
      rule: () => ({
        path: paths.transferCreate,
        outcome: 'refusal',
        status: 422,
        type: 'BENEFICIARY_DETAILS_MISMATCH',
        times: 1,
      }),
      weight: 0.3,
    },
    {
      // Spent answers at the transfer: the answered submission hears INVALID_OPERATION_ID, before the
      // bank ran it (the question still waits) or after (the money moved, as when a proxy retried the
      // request). Only the operation's own record tells: it is read, never taken as "nothing moved".
      kind: 'transfer-answers-spent',
      applies: asksOnTransfer,
      rule: (random, bank) => ({
        path: transferPath(bank),
        outcome: 'refusal',
        status: 404,
        type: 'INVALID_OPERATION_ID',
        phase: random.pick(['before', 'after'] as const),
        answered: true,
        times: 1,
      }),
      weight: 0.6,
    },
    {
      // The bank is down for the user: every metadata read fails, past the retry limit.
      kind: 'metadata-down',
      applies: anyBank,
      rule: () => metadataDown(paths),
      weight: 0.5,
    },
  ];
}
