/**
 * Answering the bank's question, over real HTTP against the local stack:
 * `POST /v1/deposits/answer` takes `{ operationID, userInputs: [{ id, answer }] }` (no create body,
 * no `query`, no secret from the backend that created it); the typed client's `answer` and `waitFor`
 * carry a deposit at the bank that asks one-time passwords (SANDBOX_OTP: on the beneficiary's
 * creation, then on the transfer) to done; a deposit that waits for no answer is 409.
 */
import { describe, expect, it } from 'vitest';
import type { DepositOf } from '#shared/deposits-api/client';
import { expectDocumented } from '../support/contract.ts';
import { depositsClient, depositsUrl, depositWhen, startDeposit } from '../support/deposits.ts';
import { createUser, failed, type Reply } from '../support/sandbox.ts';

const OTP = '123456';

/** POST /v1/deposits/answer as the stack's backend: nothing of the user, nothing but the answers. */
async function answer(body: Record<string, unknown>): Promise<Reply> {
  const response = await fetch(`${depositsUrl}/v1/deposits/answer`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const reply = { status: response.status, body: (await response.json()) as Reply['body'] };
  expectDocumented('deposits', 'POST', '/v1/deposits/answer', reply.status, reply.body);
  return reply;
}

const asking = (deposit: Reply['body']) => deposit.status === 'user_input_required';

describe('POST /v1/deposits/answer', () => {
  it('takes each input by its id and answer alone, and the deposit goes on to done', async () => {
    // prepare
    const user = await createUser('SANDBOX_OTP');
    const started = await startDeposit(user, { amount: 42 });
    const id = started.body.operationID;

    // act: two questions (the beneficiary's creation, then the transfer), each answered by id alone
    const first = await depositWhen(user, id, asking, 25_000);
    const answeredFirst = await answer({
      operationID: id,
      userInputs: first.userInputs.map((input: { id: string }) => ({ id: input.id, answer: OTP })),
    });
    const second = await depositWhen(
      user,
      id,
      (deposit) => asking(deposit) && deposit.step === 'transfer',
      25_000,
    );
    const answeredSecond = await answer({
      operationID: id,
      userInputs: second.userInputs.map((input: { id: string }) => ({ id: input.id, answer: OTP })),
    });
    const done = await depositWhen(user, id, undefined, 25_000);

    // assess
    expect(answeredFirst.status).toBe(200);
    expect(answeredFirst.body).toMatchObject({ operationID: id, status: 'initialized' });
    expect(answeredSecond.status).toBe(200);
    expect(done).toMatchObject({ status: 'done', reference: expect.any(String) });
    expect((await user.state()).transfers.map((transfer: { amount: number }) => transfer.amount)).toEqual([
      42,
    ]);
  }, 60_000);

  it('refuses an input the bank did not ask (400, naming it) and a deposit that waits for none (409)', async () => {
    const user = await createUser('SANDBOX_OTP');
    const started = await startDeposit(user, { amount: 12 });
    const id = started.body.operationID;
    const question = await depositWhen(user, id, asking);

    const unknown = await answer({ operationID: id, userInputs: [{ id: 'not-asked', answer: OTP }] });
    const withQuery = await answer({
      operationID: id,
      userInputs: question.userInputs.map((input: { id: string }) => ({
        id: input.id,
        answer: OTP,
        query: 'echoed',
      })),
    });
    const other = await startDeposit(await createUser('SANDBOX_COOLDOWN'), { amount: 13 });
    const notWaiting = await answer({
      operationID: other.body.operationID,
      userInputs: [{ id: 'otp', answer: OTP }],
    });

    expect(unknown.status).toBe(400);
    expect(unknown.body.details).toContain('userInputs.0.id: the bank asked no input not-asked');
    // An input echoed whole (its query too) is taken as well.
    expect(withQuery.status).toBe(200);
    expect(notWaiting.status).toBe(409);
    expect(notWaiting.body).toEqual(failed('DEPOSIT_NOT_WAITING'));
  });
});

describe("the typed client's answer and waitFor", () => {
  it('waits for the deposit, answering each question through onQuestion, to done; reads it by id with no secret', async () => {
    // prepare
    const user = await createUser('SANDBOX_OTP');
    const started = await startDeposit(user, { amount: 33, clientReference: `otp-${user.accountId}` });
    const questions: DepositOf<'user_input_required'>[] = [];

    // act
    const ended = await depositsClient.waitFor(started.body.operationID, {
      initialDelayMs: 100,
      onQuestion: (deposit) => {
        questions.push(deposit);
        return deposit.userInputs.map((input) => ({ id: input.id, answer: OTP }));
      },
      signal: AbortSignal.timeout(55_000),
    });
    const read = await depositsClient.get(started.body.operationID);

    // assess
    expect(ended.status).toBe('done');
    expect(ended.status === 'done' && ended.reference).toEqual(expect.any(String));
    expect(questions.map((question) => question.step)).toEqual(['ensure-beneficiary', 'transfer']);
    expect(read.body).toMatchObject({ status: 'done', clientReference: `otp-${user.accountId}` });
  }, 60_000);

  it('ends the wait when its signal aborts', async () => {
    const user = await createUser('SANDBOX_COOLDOWN');
    const started = await startDeposit(user, { amount: 10 });
    const controller = new AbortController();

    const waiting = depositsClient.waitFor(started.body.operationID, { signal: controller.signal });
    controller.abort(new Error('stop waiting'));

    await expect(waiting).rejects.toThrow('stop waiting');
  });
});
