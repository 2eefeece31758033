/**
 * Working one step message in the handler of one step:
 *   1. a message naming another step is not run here (dropped: the sweeper re-drives its deposit);
 *   2. the deposit is loaded; a message for a version or step it has left is a duplicate: dropped;
 *   3. an `expire-input` message goes to the step's expiry of the caller's question;
 *   4. a deposit waiting for its caller's answer is left alone; else the step runs.
 * The transfer's handler also takes the wake-up of a deposit in its cool-down (it may move it on).
 */
import type { Deposit, StepMessage, WorkStep } from './model.ts';
import type { DepositRecords } from './ports.ts';

export interface StepHandler<S extends WorkStep> {
  step: S;
  /** Only the deposit records are read here; the step's own context is its own. */
  deposits: Pick<DepositRecords, 'get'>;
  run(deposit: Deposit): Promise<void>;
  /** The expiry of the caller's question, for the steps that ask one. */
  expire?(deposit: Deposit, message: StepMessage & { step: S }): Promise<void>;
}

export type StepMessageOutcome = 'ran' | 'expired' | 'other-step' | 'stale' | 'waiting' | 'gone';

export async function handleStepMessage<S extends WorkStep>(
  handler: StepHandler<S>,
  message: StepMessage,
): Promise<StepMessageOutcome> {
  if (!isFor(handler.step, message)) return 'other-step';
  const deposit = await handler.deposits.get(message.depositId);
  if (!deposit || deposit.step === 'completed') return 'gone';
  if (message.kind === 'expire-input') {
    if (!handler.expire) return 'other-step';
    await handler.expire(deposit, message);
    return 'expired';
  }
  const wakesTransfer = message.step === 'transfer' && deposit.step === 'wait-cooldown';
  if (deposit.version !== message.version || (deposit.step !== message.step && !wakesTransfer))
    return 'stale';
  if (deposit.status !== 'initialized') return 'waiting';
  await handler.run(deposit);
  return 'ran';
}

function isFor<S extends WorkStep>(step: S, message: StepMessage): message is StepMessage & { step: S } {
  return message.step === step;
}
