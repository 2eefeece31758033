/**
 * What an operator sees of the deposits: the status buckets the operator's list is indexed by (the
 * `byStatus` index), and a deposit as an operator reads it (`operatorView`): everything its owner
 * sees, plus where it stands inside the workflow. Never its sealed credentials or answers, its
 * owner's digests in full, or its idempotency key. No AWS here.
 */
import * as z from 'zod';
import type { Deposit } from '#shared/deposits/model/deposit';
import { depositView } from '#shared/deposits/model/views';
import { APPROVAL_TTL_MS, livePending } from './approval.ts';

/**
 * The buckets of the operator's list: a deposit's status, but a failed deposit whose transfer
 * outcome is unknown (and not yet resolved by an operator) has a bucket of its own: the ones a
 * person must look at.
 */
export const StatusBucket = z.enum([
  'initialized',
  'user_input_required',
  'done',
  'failed',
  'outcome_unknown',
]);
export type StatusBucket = z.infer<typeof StatusBucket>;

/** The failure type of a deposit whose transfer may or may not have moved the money. */
export const OUTCOME_UNKNOWN = 'TRANSFER_OUTCOME_UNKNOWN';

/** Whether the deposit waits for an operator to say what became of its transfer. */
export function outcomeUnknown(deposit: Pick<Deposit, 'status' | 'failure' | 'resolution'>): boolean {
  return deposit.status === 'failed' && deposit.failure?.type === OUTCOME_UNKNOWN && !deposit.resolution;
}

export function statusBucket(deposit: Pick<Deposit, 'status' | 'failure' | 'resolution'>): StatusBucket {
  return outcomeUnknown(deposit) ? 'outcome_unknown' : deposit.status;
}

/** The first characters of the owner's digest: groups a connection's deposits, reveals nothing. */
export const CONNECTION_CHARS = 12;

const iso = (at: number | undefined) => (at === undefined ? undefined : new Date(at).toISOString());

/** Leaves out the fields that are undefined, so the answer carries only what the deposit has. */
function defined<T extends Record<string, unknown>>(fields: T): Partial<T> {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)) as Partial<T>;
}

/**
 * A deposit as an operator reads it. Its counters and the transfer's scratch are flat here, as the
 * operator API has always shown them, whatever groups the item keeps them in.
 */
export function operatorView(deposit: Deposit, now: number) {
  const { transfer, beneficiaryWork, stepCounters, tallies } = deposit;
  return {
    ...depositView(deposit, now),
    // The failure's detail (the bank's words, an exception's text, who acted and why): operators only.
    ...(deposit.failure ? { msg: deposit.failure.msg } : {}),
    version: deposit.version,
    connection: deposit.ownerKey.slice(0, CONNECTION_CHARS),
    retries: stepCounters.retries,
    ...defined({
      bankName: deposit.bank?.bankName,
      coolDownUntil: iso(deposit.cooldownUntil),
      sleepsUntil: iso(beneficiaryWork?.sleepsUntil),
      checkAt: iso(deposit.checkAt),
      busyWaits: stepCounters.busyWaits,
      reasks: tallies?.reasks,
      redrives: deposit.redrives,
      coolDownRefusals: tallies?.coolDownRefusals,
      polls: transfer?.polls,
      pollAt: iso(transfer?.pollAt),
      purpose: deposit.purpose,
      transferAttempt: transfer?.attempt && {
        at: new Date(transfer.attempt.at).toISOString(),
        answering: transfer.attempt.answering,
      },
      transferOperationId: transfer?.operationId,
      beneficiaryId: deposit.beneficiaryId,
      resolution: deposit.resolution && {
        ...deposit.resolution,
        at: new Date(deposit.resolution.at).toISOString(),
        ...(deposit.resolution.approval
          ? { approval: { ...deposit.resolution.approval, at: iso(deposit.resolution.approval.at) } }
          : {}),
      },
      pendingResolution: pendingView(deposit, now),
    }),
  };
}
export type OperatorView = ReturnType<typeof operatorView>;

/** A proposal waiting for a second operator, while it has not lapsed, and when it lapses. */
function pendingView(deposit: Deposit, now: number) {
  const pending = livePending(deposit, now);
  return (
    pending && {
      ...pending,
      at: new Date(pending.at).toISOString(),
      expiresAt: new Date(pending.at + APPROVAL_TTL_MS).toISOString(),
    }
  );
}
