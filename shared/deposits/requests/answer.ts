/**
 * The deposits API's answer (`POST /v1/deposits/answer`): the caller's answers to the bank's
 * question, by the deposit's id, without the create's body and without echoing each input's `query`.
 *   1. the deposit, as the caller may see it (`caller.ts`: its backend, the connection it names);
 *   2. it must wait for an answer (`user_input_required`), else DEPOSIT_NOT_WAITING saying where it is;
 *   3. each input the bank asked is answered by its `id` (an id it did not ask, one answered twice,
 *      or one left out is BAD_REQUEST naming it), and completed with the question's own `index` and
 *      `query`, as the provider wants it back;
 *   4. then as a repeated create with `userInputs` (`resume`): sealed on the deposit, which goes back
 *      to the step that asked; an answer after the question expired fails it INPUT_EXPIRED.
 * The create with the same `Idempotency-Key` and `userInputs` still works the same way.
 */
import type { UserInput } from '#shared/provider/interface/schemas';
import { type AskedInput, isSource } from '../model/deposit.ts';
import { DepositError } from '../model/errors.ts';
import { depositView } from '../model/views.ts';
import type { OwnerDigests } from '../ports/provider.ts';
import { type Caller, sees } from './caller.ts';
import { type ResumeContext, resume } from './start.ts';

export interface AnswerContext extends ResumeContext {
  ownerDigests: OwnerDigests;
}

/** An answer as the caller sends it: the input's `id` and its `answer` (`index` and `query` are the question's). */
export interface GivenAnswer {
  id: string;
  answer: string;
}

export async function answerDeposit(
  request: { depositId: string; userInputs: GivenAnswer[] } & Caller,
  ctx: AnswerContext,
) {
  const deposit = await ctx.deposits.get(request.depositId);
  if (!sees(deposit, request, ctx.ownerDigests) || isSource(deposit))
    throw new DepositError('DEPOSIT_NOT_FOUND', `No deposit ${request.depositId}`);
  if (deposit.status !== 'user_input_required' || !deposit.pendingInput) {
    throw new DepositError(
      'DEPOSIT_NOT_WAITING',
      `The deposit waits for no answer: it is ${deposit.status} at ${deposit.step}`,
    );
  }
  const answered = await resume(ctx, deposit, completed(deposit.pendingInput.userInputs, request.userInputs));
  return depositView(answered, ctx.clock.now());
}

/** The bank's question with the caller's answers, matched by id; BAD_REQUEST naming what does not fit. */
export function completed(asked: readonly AskedInput[], given: readonly GivenAnswer[]): UserInput[] {
  const askedIds = new Set(asked.map((input) => input.id));
  const seen = new Set<string>();
  const problems: string[] = [];
  for (const [index, answer] of given.entries()) {
    if (!askedIds.has(answer.id))
      problems.push(`userInputs.${index}.id: the bank asked no input ${answer.id}`);
    else if (seen.has(answer.id)) problems.push(`userInputs.${index}.id: ${answer.id} is answered twice`);
    seen.add(answer.id);
  }
  for (const input of asked)
    if (!seen.has(input.id)) problems.push(`userInputs: no answer to the input ${input.id} the bank asked`);
  if (problems.length > 0)
    throw new DepositError('BAD_REQUEST', `Invalid request: ${problems.join('; ')}`, problems);
  return asked.map((input) => ({
    id: input.id,
    index: input.index,
    query: input.query,
    answer: given.find((answer) => answer.id === input.id)?.answer ?? '',
  }));
}
