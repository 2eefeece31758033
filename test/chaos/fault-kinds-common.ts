/**
 * A kind of provider fault (`FaultKind`), and what the families of kinds (`fault-kinds-*.ts`) share:
 * the banks a kind applies at, and the path a bank's transfer is called at.
 */

import type { Dialect } from '#shared/provider/interface/dialects';
import type { FaultRule } from './faults.ts';
import type { Bank } from './plan.ts';
import type { Random } from './random.ts';

/** A kind of provider fault: its name, whether the bank has the call it hits, its rule, its weight. */
export interface FaultKind {
  kind: string;
  applies(bank: Bank): boolean;
  rule(random: Random, bank: Bank, timeoutMs: number): FaultRule;
  weight: number;
  /**
   * Its firing ends the deposit it hits, at its transfer: refused, or its outcome unknown (a 5xx or
   * a timeout). A user holds one such kind, so that each can fire.
   */
  ends?: true;
  /**
   * It hits the transfer's operation read back (`reconcile`), which comes after the transfer: only on
   * a user with a deposit sure to get there, past a kind that `ends` (`faults.ts`). In a dialect that
   * sends no `sync`, its user's bank takes its time over transfers, so that they are read back
   * (`plan.ts`).
   */
  readsBack?: true;
}

/** Where a kind applies: at any bank, or only where the bank takes beneficiaries. */
export const anyBank = () => true;
export const withBeneficiaries = (bank: Bank) => bank.beneficiaries;

/** The path of the transfer at a bank, in `paths`: to a beneficiary where the bank takes them. */
export const transferPathOn = (paths: Dialect['paths']) => (bank: Bank) =>
  bank.beneficiaries ? paths.transferCreate : paths.transferAutoflow;
