/**
 * Working one step message in the handler of one step:
 *   1. a message naming another step is not run here (dropped: the sweeper re-drives its deposit);
 *   2. the deposit is loaded; a message for a version or step it has left is a duplicate: dropped (a
 *      finished payment source hands its followers on first: it may have died before it did);
 *   3. an `expire-input` message goes to the step's expiry of the caller's question;
 *   4. a deposit waiting for its caller's answer is left alone;
 *   5. a deposit the sweeper has re-driven `maxRedrives` times without it moving fails;
 *   6. else the step runs; if it throws, the queue brings the message back, and on its last try
 *      (`maxAttempts`, the queue's receive count before its DLQ) the deposit fails instead, unless
 *      the error passes with time (`passesWithTime`: the infrastructure's throttling, a conflict, a
 *      timeout): then the message goes to the DLQ and the deposit stays at its step for the sweeper,
 *      whose re-drives back off and are bounded by `maxRedrives`.
 * The transfer's handler also takes the wake-up of a deposit in its cool-down (it may move it on).
 */
import { afterCoolDown, type Deposit, isSource, type WorkStep } from '../model/deposit.ts';
import type { StepMessage } from '../model/messages.ts';
import type { DepositRecords } from '../ports/records.ts';

export interface StepHandler<S extends WorkStep> {
  step: S;
  /** Only the deposit records are read here; the step's own context is its own. */
  deposits: Pick<DepositRecords, 'get'>;
  run(deposit: Deposit): Promise<void>;
  /** The expiry of the caller's question, for the steps that ask one. */
  expire?(deposit: Deposit, message: StepMessage & { step: S }): Promise<void>;
  /** Ends a deposit whose step keeps failing (`transitions.ts` `giveUp`). */
  giveUp(deposit: Deposit, reason: string): Promise<void>;
  /** Wakes the followers of a finished payment source, if any are left (`wake-ups.ts` `wakeFollowers`). */
  handOn(source: Deposit): Promise<void>;
  limits: StepLimits;
}

export interface StepLimits {
  /** Tries of one message: the queue's receive count before its DLQ. */
  maxAttempts: number;
  /** Re-drives by the sweeper without the deposit moving. */
  maxRedrives: number;
  /**
   * Whether an error passes with time (a throttled or conflicting write, a timeout, a reset
   * connection): a last try that fails with one does not end its deposit.
   */
  passesWithTime(error: unknown): boolean;
}

export type StepMessageOutcome = 'ran' | 'expired' | 'other-step' | 'stale' | 'waiting' | 'gone' | 'gave-up';

export async function handleStepMessage<S extends WorkStep>(
  handler: StepHandler<S>,
  message: StepMessage,
  /** This message's try: 1 the first time the queue delivers it. */
  attempt = 1,
): Promise<StepMessageOutcome> {
  if (!isFor(handler.step, message)) return 'other-step';
  const deposit = await handler.deposits.get(message.depositId);
  if (!deposit) return 'gone';
  if (deposit.step === 'completed') {
    if (isSource(deposit)) await handler.handOn(deposit);
    return 'gone';
  }
  if (message.kind === 'expire-input') {
    if (!handler.expire) return 'other-step';
    await handler.expire(deposit, message);
    return 'expired';
  }
  const endsCoolDown = deposit.step === 'wait-cooldown' && message.step === afterCoolDown(deposit);
  if (deposit.version !== message.version || (deposit.step !== message.step && !endsCoolDown)) return 'stale';
  if (deposit.status !== 'initialized') return 'waiting';
  const redrives = deposit.redrives ?? 0;
  if (redrives >= handler.limits.maxRedrives) {
    await handler.giveUp(deposit, `The ${deposit.step} step was re-driven ${redrives} times without moving`);
    return 'gave-up';
  }
  try {
    await handler.run(deposit);
  } catch (error) {
    // Tries spent by trouble that passes (its infrastructure's, not the deposit's) do not end it: the
    // message goes to the DLQ, and the sweeper re-drives the deposit later.
    if (attempt < handler.limits.maxAttempts || handler.limits.passesWithTime(error)) throw error;
    const reason = `The ${deposit.step} step failed on each of its ${attempt} tries: ${(error as Error).message}`;
    await handler.giveUp(deposit, reason);
    return 'gave-up';
  }
  return 'ran';
}

function isFor<S extends WorkStep>(step: S, message: StepMessage): message is StepMessage & { step: S } {
  return message.step === step;
}
