/**
 * The questions a bank asks and the answers it takes (rule 1 of the spec): which questions, the
 * operation a repeated request with `userInputs` answers (the one its id names, or without an id the
 * one waiting for input on the connection), whether the answers are right, and the wrong answers an
 * operation takes before it fails (`MAX_INPUT_TRIES`).
 */
import { ProviderError } from '#shared/provider/interface/errors';
import type { UserInput } from '#shared/provider/interface/schemas';
import { fingerprint, type IdField } from './operation-records.ts';
import type { ConnectionRecord, OperationKind, OperationRecord, SandboxStore } from './store.ts';

/** The sandbox's one-time password: the right answer to every question it asks (the secret one too). */
export const SANDBOX_OTP = '123456';
/** Answers a waiting operation takes: a wrong one asks again, the last wrong one fails it (INVALID_MFA). */
export const MAX_INPUT_TRIES = 3;

/** The questions a bank may ask; every one is answered with `SANDBOX_OTP`. */
const questionBook = {
  otp: { query: 'Enter the one-time password sent to your registered mobile number' },
  secret_question: { query: 'Enter the answer to your secret question' },
} as const;
export type QuestionId = keyof typeof questionBook;

/** The `userInputs` of a question set, indexed in the order given. */
export function questionsOf(ids: readonly QuestionId[]): UserInput[] {
  return ids.map((id, index) => ({ id, index, query: questionBook[id].query, answer: '' }));
}

/** The same questions asked again after a wrong answer, saying how many tries are left. */
export function askedAgain(asked: UserInput[], triesLeft: number): UserInput[] {
  const hint = `The answer was not accepted (${triesLeft} ${triesLeft === 1 ? 'try' : 'tries'} left). `;
  return asked.map((question) => {
    const known = questionBook[question.id as QuestionId];
    return { ...question, query: `${hint}${known?.query ?? question.query}`, answer: '' };
  });
}

/** Whether every question asked has its right answer among `given` (matched by id). */
export function answeredRightly(asked: UserInput[], given: UserInput[]): boolean {
  return asked.every((question) => {
    const answer = given.find((input) => input.id === question.id)?.answer;
    return answer?.trim() === SANDBOX_OTP;
  });
}

/** The questions an operation waiting for input asked (as last asked). */
export function askedOf(operation: OperationRecord): UserInput[] {
  return (operation.response.userInputs as UserInput[] | undefined) ?? [];
}

/**
 * The operation a request with `userInputs` answers: the one its id names or, without an id, the one
 * holding the connection; it must be this connection's, of this kind, waiting for input, and asked by
 * the same request (INVALID_OPERATION_ID, OPERATION_MISMATCH otherwise).
 */
export async function waitingOperation(
  store: SandboxStore,
  connection: ConnectionRecord,
  kind: OperationKind,
  request: object & Partial<Record<IdField, string>>,
  answeredId: string | undefined,
  now: number,
): Promise<OperationRecord> {
  const waitingId = answeredId ?? connection.lockOperationId;
  const operation = waitingId === undefined ? undefined : await store.getOperation(waitingId);
  const waiting =
    operation?.connectionId === connection.id &&
    operation.kind === kind &&
    operation.state === 'awaiting_input' &&
    now >= operation.completesAt;
  if (!operation || !waiting) throw new ProviderError('INVALID_OPERATION_ID');
  if (operation.fingerprint !== fingerprint(request)) throw new ProviderError('OPERATION_MISMATCH');
  return operation;
}

/** The operation after one more wrong answer, asking again; undefined when that was the last try. */
export function afterWrongAnswer(operation: OperationRecord): OperationRecord | undefined {
  const wrongAnswers = (operation.wrongAnswers ?? 0) + 1;
  if (wrongAnswers >= MAX_INPUT_TRIES) return undefined;
  return {
    ...operation,
    wrongAnswers,
    response: {
      ...operation.response,
      userInputs: askedAgain(askedOf(operation), MAX_INPUT_TRIES - wrongAnswers),
    },
  };
}
