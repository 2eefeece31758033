/**
 * The caller's part: when the bank asks a question (`user_input_required`), the deposit stops at
 * its step, keeps the connection for the answer, and its caller hears the question. The answer
 * comes with a repeat of the create request (`start.ts`); a question nobody answers in time fails
 * the deposit, woken by a message or a schedule armed here.
 */
import type { InputAnswer, ProviderAnswer } from '#shared/provider/client';
import { inputLimits } from '#shared/provider/interface/limits';
import type { UserInput } from '#shared/provider/interface/schemas';
import type { AskedInput, AskingOperation, Deposit, WorkStep } from '../model/deposit.ts';
import { tallied, tallyOf } from '../model/deposit-work.ts';
import { messageFor, type StepMessage } from '../model/messages.ts';
import { askedOf } from '../model/views.ts';
import type { ConnectionLeases } from '../ports/connection.ts';
import type { StepQueues } from '../ports/messaging.ts';
import type { CredentialOpener } from '../ports/provider.ts';
import { freeLease } from './lease-waits.ts';
import { advance, type FailContext, fail, ownLease, sendStep } from './transitions.ts';
import { delaySeconds, deliverAt, expiryName, type WakeContext } from './wake-ups.ts';

export type Question = Extract<ProviderAnswer<unknown>, { status: 'user_input_required' }>;

export interface PauseContext<S extends WorkStep> extends FailContext, WakeContext<S> {
  leases: ConnectionLeases;
}

/**
 * Stops at a provider question:
 *   1. the deposit waits for input, with the question and when it stops waiting;
 *   2. the connection's lease passes from the call to the deposit, until the answer or expiry;
 *   3. the expiry is armed (to the queue of the step that asked); the caller hears the question
 *      from the write of step 1 (its outbox).
 */
export async function pauseForInput<S extends WorkStep>(
  ctx: PauseContext<S>,
  deposit: Deposit,
  step: S,
  question: Question,
  asked: {
    operation: AskingOperation;
    lease?: string | undefined;
    /** What else the deposit records with the question (the step's own state). */
    also?: Partial<Deposit>;
    /**
     * When the bank began waiting for the answer, if before now: a question found by reading the
     * operation back was asked at its submission, and its time is counted from there.
     */
    since?: number | undefined;
  },
): Promise<Deposit | undefined> {
  const heldLease = asked.lease;
  const userInputs = keptQuestion(question.userInputs);
  if (!userInputs) {
    if (heldLease) await freeLease(ctx, deposit.ownerKey, heldLease);
    const msg = `The bank asked a question past what one may hold (${inputLimits.userInputs} inputs, ids of ${inputLimits.inputId} characters)`;
    await fail(ctx, deposit, 'PROVIDER_PROTOCOL_ERROR', msg);
    return undefined;
  }
  const now = ctx.clock.now();
  const expiresAt = Math.min(now, asked.since ?? now) + ctx.settings.inputTtlMs;
  const next = await advance(
    ctx,
    deposit,
    {
      ...asked.also,
      status: 'user_input_required',
      // The bank answered: the retries of failed calls, and its busy waits, start over.
      stepCounters: { retries: 0 },
      pendingInput: {
        providerOperationId: question.id,
        operation: asked.operation,
        userInputs,
        expiresAt,
      },
      sealedAnswers: undefined,
    },
    'waiting for user input',
    {
      type: 'deposit.user_input_required',
      data: { userInputs: askedOf(userInputs), inputExpiresAt: new Date(expiresAt).toISOString() },
    },
  );
  if (!next) {
    // Another writer moved the deposit: the connection is not ours to keep.
    if (heldLease) await freeLease(ctx, deposit.ownerKey, heldLease);
    return undefined;
  }
  await ctx.leases.acquire(next.ownerKey, ownLease(next), expiresAt, now, heldLease);
  await deliverAt(ctx, expiryName(next.id, next.version), messageFor(next, step, 'expire-input'), expiresAt);
  return next;
}

/**
 * The refusal that says the caller's answers reached no operation waiting for them: the answered
 * call ran, and its outcome was lost with the step that made it (or the bank dropped the question).
 * For a read (metadata, the beneficiary list) the answers are spent and the read is made again, so
 * the bank asks again; never for a call that may have changed something.
 */
export const SPENT_ANSWERS = 'INVALID_OPERATION_ID';

/**
 * The refusal that says the bank stopped waiting before the answers came (its own wait is shorter
 * than ours, or the answers were slow on their way): nothing ran, and the call is asked again.
 */
export const LATE_ANSWERS = 'USER_INPUT_EXPIRED';

/** Whether a refusal of an answered read means that the read should be made again (`askAgain`). */
export function asksAgain(refusal: { type: string }): boolean {
  return refusal.type === SPENT_ANSWERS || refusal.type === LATE_ANSWERS;
}

/** How many times a deposit asks a question again after the bank refused its answers. */
export const MAX_REASKS = 3;

/**
 * The least share of the question's time (`inputTtlMs`) a caller is left to answer in: a question
 * found with less left (read back late, its time counted from the bank's) is asked again instead.
 */
export const MIN_ANSWER_SHARE = 0.5;

/**
 * Whether a question the bank began waiting on `since` leaves its caller too little time to answer
 * now, and may still be asked again (the re-asks are not used up).
 */
export function tooLateToAsk(
  ctx: Pick<FailContext, 'clock' | 'settings'>,
  deposit: Deposit,
  since: number,
): boolean {
  const left = since + ctx.settings.inputTtlMs - ctx.clock.now();
  return left < ctx.settings.inputTtlMs * MIN_ANSWER_SHARE && tallyOf(deposit, 'reasks') < MAX_REASKS;
}

/**
 * Makes the call again without the refused answers, so that the bank asks again; counted apart from
 * the retries (a question from the bank starts those over), and bounded: past `MAX_REASKS` the
 * deposit fails with the bank's refusal.
 */
export async function askAgain<S extends WorkStep>(
  ctx: FailContext & { queues: StepQueues<S> },
  deposit: Deposit,
  step: S,
  refusal: { type: string; msg: string },
  /** What else changes with the question asked again (the transfer forgets its attempt). */
  also: Partial<Deposit> = {},
  /** The history's note, when the refusal's type does not say why. */
  note = `answers refused (${refusal.type}): asking again`,
) {
  if (tallyOf(deposit, 'reasks') >= MAX_REASKS) return fail(ctx, deposit, refusal.type, refusal.msg, also);
  const changes = {
    ...also,
    step,
    pendingInput: undefined,
    sealedAnswers: undefined,
    ...tallied(deposit, 'reasks'),
  };
  const next = await advance(ctx, deposit, changes, note);
  if (next) await sendStep(ctx, next, step);
}

/** Fails a deposit still waiting for this answer once its time is up; woken early, it looks again later. */
export async function expireInput<S extends WorkStep>(
  ctx: PauseContext<S>,
  deposit: Deposit,
  message: StepMessage & { step: S },
) {
  if (deposit.version !== message.version || deposit.status !== 'user_input_required') return;
  const expiresAt = deposit.pendingInput?.expiresAt ?? 0;
  if (expiresAt > ctx.clock.now()) return ctx.queues.send(message, delaySeconds(expiresAt - ctx.clock.now()));
  await fail(ctx, deposit, 'INPUT_EXPIRED', 'Nobody answered the bank in time');
}

/**
 * The bank's question as the deposit keeps it: each input's id, index and query, never the `answer`
 * field the bank sent; queries cut to `inputLimits.query`. Undefined past what a question may hold
 * (more inputs than a caller may answer, or an id longer than one it may send back).
 */
export function keptQuestion(inputs: readonly UserInput[]): AskedInput[] | undefined {
  if (inputs.length > inputLimits.userInputs) return undefined;
  if (inputs.some((input) => input.id.length > inputLimits.inputId)) return undefined;
  return inputs.map(({ id, index, query }) => ({ id, index, query: query.slice(0, inputLimits.query) }));
}

/** The caller's answers to the provider's pending question (of `operation`, if given), if there are any. */
export async function answerFor(
  ctx: { vault: CredentialOpener },
  deposit: Deposit,
  operation?: AskingOperation,
): Promise<InputAnswer | undefined> {
  if (!deposit.pendingInput || !deposit.sealedAnswers) return undefined;
  if (operation && (deposit.pendingInput.operation ?? 'create') !== operation) return undefined;
  const answers = await ctx.vault.open<UserInput[]>('answers', deposit.id, deposit.sealedAnswers);
  const userInputs = deposit.pendingInput.userInputs.map((input) => ({
    ...input,
    answer: answers.find((candidate) => candidate.id === input.id)?.answer ?? '',
  }));
  return { id: deposit.pendingInput.providerOperationId, userInputs };
}
