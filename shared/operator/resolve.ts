/**
 * An operator settles a transfer whose outcome is unknown (the deposit failed
 * TRANSFER_OUTCOME_UNKNOWN and nobody has resolved it yet), having asked the bank:
 *   1. `done`: the money moved; the deposit becomes done with the bank's reference;
 *      `failed`: it did not; the deposit stays failed, now TRANSFER_NOT_EXECUTED with the reason;
 *   2. in ONE conditional write on the version (`advance`), the deposit records the resolution
 *      (who, how, why, when: for the operators), a history note, and the event its caller hears
 *      (`deposit.done`, or `deposit.failed` with the fixed message of its type, each `resolved`:
 *      never who nor why), which the outbox relays like any other.
 * A resolution to `done` above the deposit's approval threshold is first only proposed: the write
 * records it pending (no note, no event), and a second, different operator's same resolution applies
 * it as above (`approval.ts` says who may do what while one is pending).
 * Anything else (in flight, done, failed otherwise, resolved already) is 409 DEPOSIT_NOT_RESOLVABLE;
 * of two operators resolving at once, the second finds it resolved (or, proposing the same, approves).
 */

import { advance, type EventOf, type TransitionContext } from '#shared/deposits/journey/transitions';
import type { Deposit, PendingResolution, Resolution } from '#shared/deposits/model/deposit';
import { DepositError } from '#shared/deposits/model/errors';
import { ownerMessage } from '#shared/deposits/model/failures';
import { type ApprovalThresholds, decide } from './approval.ts';
import { OperatorError } from './errors.ts';
import { operatorView, outcomeUnknown } from './model.ts';

export interface ResolveContext extends TransitionContext {
  /** Per currency, the largest amount (minor units) one operator may resolve `done` alone. */
  approvalAbove: ApprovalThresholds;
}

export interface Resolve {
  depositId: string;
  outcome: 'done' | 'failed';
  reference?: string | undefined;
  reason: string;
  /** The operator's identity. */
  who: string;
}

/** The failure type of a transfer the operator found was never executed. */
export const NOT_EXECUTED = 'TRANSFER_NOT_EXECUTED';

/** How many times a resolve decides again when the deposit changed under it. */
const MAX_TRIES = 3;

export async function resolveDeposit(request: Resolve, ctx: ResolveContext) {
  for (let tries = 0; tries < MAX_TRIES; tries += 1) {
    const deposit = await ctx.deposits.get(request.depositId);
    if (!deposit) throw new DepositError('DEPOSIT_NOT_FOUND', `No deposit ${request.depositId}`);
    if (!outcomeUnknown(deposit)) {
      throw new OperatorError(
        'DEPOSIT_NOT_RESOLVABLE',
        deposit.resolution
          ? `The deposit was resolved ${deposit.resolution.outcome} by ${deposit.resolution.by} already`
          : `Only a deposit failed TRANSFER_OUTCOME_UNKNOWN can be resolved; this one is ${deposit.status}${deposit.failure ? ` (${deposit.failure.type})` : ''}`,
      );
    }
    const now = ctx.clock.now();
    const decision = decide(deposit, request, now, ctx.approvalAbove);
    if (decision.kind === 'propose') {
      // Pending: nothing its owner hears or reads yet.
      const pendingResolution: PendingResolution = {
        outcome: 'done',
        reference: request.reference ?? '',
        by: request.who,
        reason: request.reason,
        at: now,
      };
      const proposed = await advance(ctx, deposit, { pendingResolution });
      if (proposed) return operatorView(proposed, ctx.clock.now());
      continue;
    }
    const { changes, event } = resolution(request, now, decision.approves);
    // The note is the owner's to read too: who and why stay on the resolution, for the operators.
    const note = `resolved ${request.outcome} by an operator`;
    const resolved = await advance(ctx, deposit, { ...changes, pendingResolution: undefined }, note, event);
    if (resolved) return operatorView(resolved, ctx.clock.now());
  }
  throw new DepositError('DEPOSIT_BUSY', 'The deposit kept changing; read it and try again');
}

/** The resolution the request makes: its own, or, approving another's proposal, that one with the approval. */
function resolution(request: Resolve, now: number, approves?: PendingResolution) {
  const record: Resolution = approves
    ? {
        outcome: 'done',
        by: approves.by,
        reason: approves.reason,
        at: approves.at,
        approval: { by: request.who, reason: request.reason, at: now },
      }
    : { outcome: request.outcome, by: request.who, reason: request.reason, at: now };
  const told = { resolved: true };
  if (request.outcome === 'done') {
    const reference = request.reference ?? '';
    const changes: Partial<Deposit> = { status: 'done', failure: undefined, reference, resolution: record };
    const event: EventOf = { type: 'deposit.done', data: { reference, ...told } };
    return { changes, event };
  }
  const failure = { type: NOT_EXECUTED, msg: request.reason };
  const changes: Partial<Deposit> = { failure, resolution: record };
  const event: EventOf = {
    type: 'deposit.failed',
    data: { type: NOT_EXECUTED, msg: ownerMessage(NOT_EXECUTED), ...told },
  };
  return { changes, event };
}
