/**
 * The deposit's step scratch, grouped so that each reset is one assignment: its transfer's
 * (`transfer`), its way to the beneficiary (`beneficiaryWork`), the counts of its current step
 * (`stepCounters`) and those across its steps (`tallies`); and the changes that set one field of a
 * group, keeping the others (a change of a deposit replaces each field it names whole). No AWS here.
 */

/**
 * What the transfer step and `reconcile` keep of one transfer: the attempt, the provider's operation
 * and the reads of it. All of it goes at once (`transfer: undefined`) when the bank refused the
 * transfer or asked a question (nothing moved), and when it is done; a deposit failed with its
 * transfer's outcome unknown keeps it, for the operator who settles it.
 */
export interface TransferWork {
  /** Set, conditionally, just before the transfer call: its presence means money may have moved. */
  attempt?: { at: number; answering: boolean };
  /**
   * The provider's id of the transfer operation, recorded in the same write that records what its
   * submission answered (`initialized`): the `reconcile` step reads the operation by it.
   */
  operationId?: string;
  /** Reads of the transfer operation so far (`reconcile`), for their growing delay and their bound. */
  polls?: number;
  /** When the next read of the transfer operation is due (a delayed message is on its way). */
  pollAt?: number;
}

/**
 * What ensure-beneficiary keeps on its way to the beneficiary, and what the transfer should send of
 * it. All of it goes at once (`beneficiaryWork: undefined`) when the bank says the beneficiary is gone
 * (registered again); once it is found, only `sendDetails` stays. The beneficiary's id and cool-down
 * are facts of the deposit (`beneficiaryId`, `cooldownUntil`), not part of it.
 */
export interface BeneficiaryWork {
  /**
   * The bank said the beneficiary exists, but an earlier attempt's answer (its id) was lost: look it
   * up in the list at this time, when even a bank that hides new beneficiaries shows it.
   */
  lookupAt?: number;
  /** Send the beneficiary's details with the transfer (first transfer, or the bank asked). */
  sendDetails?: boolean;
  /** The step sleeps until then (a wake-up is armed): waiting for another deposit's beneficiary claim. */
  sleepsUntil?: number;
  /** Waits for another deposit's beneficiary claim, counted (each one's length is the claim's silence). */
  claimWaits?: number;
}

/** The counts of the current step: a move to another step starts them over (`{ retries: 0 }`), and so does a question. */
export interface StepCounters {
  /** Retries of the current step after an unknown outcome of a read, or a busy connection. */
  retries: number;
  /** Times the current step found the bank's connection busy (another operation on it): contention, not failure. */
  busyWaits?: number;
}

/** The counts kept across the deposit's steps, each for its bound. */
export interface Tallies {
  /** Cool-down refusals of the transfer (bounded by the retry limit). */
  coolDownRefusals?: number;
  /** Questions asked again because the bank refused their answers (`askAgain`). */
  reasks?: number;
  /** Times the deposit registered the beneficiary again after the bank said ours was gone (at most once). */
  registrations?: number;
}

/** The change that sets these fields of the deposit's transfer scratch, keeping the others. */
export function transferWith(deposit: { transfer?: TransferWork }, fields: TransferWork) {
  return { transfer: { ...deposit.transfer, ...fields } };
}

/** The change that sets these fields of the deposit's way to the beneficiary, keeping the others. */
export function beneficiaryWorkWith(deposit: { beneficiaryWork?: BeneficiaryWork }, fields: BeneficiaryWork) {
  return { beneficiaryWork: { ...deposit.beneficiaryWork, ...fields } };
}

/** The change that counts one more of the current step's `counter`, keeping the other. */
export function countedInStep(deposit: { stepCounters: StepCounters }, counter: keyof StepCounters) {
  const counters = deposit.stepCounters;
  return { stepCounters: { ...counters, [counter]: (counters[counter] ?? 0) + 1 } };
}

/** One `tally` of the deposit so far (0 before the first). */
export function tallyOf(deposit: { tallies?: Tallies }, tally: keyof Tallies): number {
  return deposit.tallies?.[tally] ?? 0;
}

/** The change that counts one more `tally` of the deposit, keeping the others. */
export function tallied(deposit: { tallies?: Tallies }, tally: keyof Tallies) {
  return { tallies: { ...deposit.tallies, [tally]: tallyOf(deposit, tally) + 1 } };
}
