/**
 * An operator's hands on one deposit in flight: cancel it before its transfer (the owner's cancel,
 * `shared/deposits/requests/cancel.ts`, without the owner's check, the operator and the reason named on it),
 * or redrive it now (the message the sweeper would send, `redriveMessage`), under the sweeper's own
 * stall guard: a deposit whose transfer call may still be in flight is refused until it has stalled.
 * A finished payment source is re-driven at its transfer step, which hands on any followers it
 * died before waking.
 */

import type { Clock } from '#shared/clock';
import { redriveMessage } from '#shared/deposits/background/sweeper';
import { type Deposit, isSource } from '#shared/deposits/model/deposit';
import { DepositError } from '#shared/deposits/model/errors';
import { messageFor } from '#shared/deposits/model/messages';
import type { StepQueues } from '#shared/deposits/ports/messaging';
import type { DepositRecords } from '#shared/deposits/ports/records';
import type { SendsOf } from '#shared/deposits/reach';
import { type CancelContext, cancelBeforeTransfer } from '#shared/deposits/requests/cancel';
import { OperatorError } from './errors.ts';
import { operatorView } from './model.ts';

const anyDeposit = (deposit: Deposit | undefined): deposit is Deposit => deposit !== undefined;

export async function cancelAsOperator(
  request: { depositId: string; reason: string; who: string },
  ctx: CancelContext,
) {
  // Who and why stay in the failure's detail, for the operators; the owner's note names no one.
  const said = `Cancelled by ${request.who}: ${request.reason}`;
  const note = 'cancelled by an operator';
  const cancelled = await cancelBeforeTransfer(ctx, request.depositId, anyDeposit, { msg: said, note });
  return operatorView(cancelled, ctx.clock.now());
}

export interface RedriveContext {
  deposits: Pick<DepositRecords, 'get'>;
  queues: StepQueues<SendsOf<'operator-redrive'>>;
  clock: Pick<Clock, 'now'>;
}

/**
 * Sends the deposit's current step message now; a finished deposit has none (409), and one whose
 * transfer may still be in flight waits for its check time (409).
 */
export async function redriveDeposit(request: { depositId: string }, ctx: RedriveContext) {
  const deposit = await ctx.deposits.get(request.depositId);
  if (!deposit) throw new DepositError('DEPOSIT_NOT_FOUND', `No deposit ${request.depositId}`);
  const finishedSource = isSource(deposit) && deposit.step === 'completed';
  const message = finishedSource ? messageFor(deposit, 'transfer') : redriveMessage(deposit);
  if (!message) {
    throw new OperatorError('DEPOSIT_NOT_IN_FLIGHT', `The deposit is ${deposit.status} already`);
  }
  const checkAt = deposit.checkAt ?? 0;
  if (deposit.transfer?.attempt && checkAt > ctx.clock.now()) {
    throw new OperatorError(
      'DEPOSIT_TRANSFER_IN_FLIGHT',
      `Its transfer call may still be in flight; the sweeper looks at it at ${new Date(checkAt).toISOString()}, a redrive is taken from then`,
    );
  }
  await ctx.queues.send(message);
  return { operationID: deposit.id, step: message.step, version: message.version, redriven: true };
}
