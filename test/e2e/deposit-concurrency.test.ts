/**
 * Many deposits of one user at once, end to end on the local stack: every one ends done, the user's
 * connection gets exactly one beneficiary (the orchestrator's own record decides who creates it,
 * also when the bank hides new beneficiaries during their cool-down), one transfer per deposit, and
 * the balance falls by exactly their sum. No faults are injected here: the concurrency is the test.
 */
import { randomUUID } from 'node:crypto';
import { describe, it } from 'vitest';
import { cents, sandboxState } from '../support/deposit-checks.ts';
import { depositWhen, otpAnswer, readDeposit, startDeposit } from '../support/deposits.ts';
import { createUser, eventually, type Reply, type TestUser } from '../support/sandbox.ts';

async function beneficiaryIds(user: TestUser): Promise<string[]> {
  const reply = await user.call('/v1/payment/beneficiaries/get', { sync: true });
  if (reply.status !== 200 || !Array.isArray(reply.body.beneficiaries)) {
    throw new Error(`beneficiaries not listed: ${reply.status} ${JSON.stringify(reply.body)}`);
  }
  return (reply.body.beneficiaries as { id: string }[]).map((beneficiary) => beneficiary.id);
}

/** `count` deposits of 10.01, 10.02, ... started at once, each with its own Idempotency-Key. */
async function startAtOnce(user: TestUser, count: number) {
  const amounts = Array.from({ length: count }, (_, index) => (1_001 + index) / 100);
  const replies = await Promise.all(amounts.map((amount) => startDeposit(user, { amount }, randomUUID())));
  return { amounts, replies };
}

/**
 * Each deposit once it is done or failed, within `timeoutMs` for all: polled one after the other (the
 * slowest bounds the wait either way), never twenty reads every tenth of a second on a stack that
 * other files share.
 */
async function allSettled(user: TestUser, ids: string[], timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  const ended: Reply['body'][] = [];
  for (const id of ids)
    ended.push(await depositWhen(user, id, undefined, Math.max(0, deadline - Date.now())));
  return ended;
}

// The three users side by side, each at a bank of its own: one after the other, they made this the
// end-to-end project's longest file (some 60 to 78 s), which the others ended a while before.
describe.concurrent('deposits of one user at once', { timeout: 75_000 }, () => {
  it('20 deposits (SANDBOX_BENEFICIARY): all done, one beneficiary, 20 transfers, balance less their sum', async ({
    expect,
  }) => {
    // prepare
    const user = await createUser('SANDBOX_BENEFICIARY');

    // act
    const { amounts, replies } = await startAtOnce(user, 20);
    const ids = replies.map((reply) => reply.body.operationID as string);
    // The connection takes one transfer at a time, and the waits for it grow: under load the 20
    // took 45 to 53 s, and once past a minute.
    const ended = await allSettled(user, ids, 120_000);
    const bank = await sandboxState(user);
    const listed = await beneficiaryIds(user);

    // assess
    expect(replies.map((reply) => reply.status)).toEqual(amounts.map(() => 202));
    expect(new Set(ids).size).toBe(20);
    expect(ended.map((deposit) => deposit.status)).toEqual(amounts.map(() => 'done'));
    expect(listed).toHaveLength(1);
    expect(bank.transfers).toHaveLength(20);
    expect(bank.transfers.map((transfer) => transfer.reference).sort()).toEqual(
      ended.map((deposit) => deposit.reference).sort(),
    );
    expect(bank.transfers.map((transfer) => cents(transfer.amount)).sort((a, b) => a - b)).toEqual(
      amounts.map(cents),
    );
    expect(new Set(bank.transfers.map((transfer) => transfer.receiver.beneficiaryID))).toEqual(
      new Set(listed),
    );
    const sumMinor = amounts.reduce((sum, amount) => sum + cents(amount), 0);
    expect(sumMinor).toBe(20_210);
    expect(bank.balanceMinor).toBe(cents(user.balance) - sumMinor);
  }, 150_000);

  it('10 deposits on a bank that hides new beneficiaries (SANDBOX_COOLDOWN_FAST): one beneficiary, all done', async ({
    expect,
  }) => {
    // prepare
    const user = await createUser('SANDBOX_COOLDOWN_FAST');

    // act
    const startedAt = Date.now();
    const { amounts, replies } = await startAtOnce(user, 10);
    const ids = replies.map((reply) => reply.body.operationID as string);
    const ended = await allSettled(user, ids, 60_000);
    const bank = await sandboxState(user);
    // Listed after the cool-down ended (every transfer needed it over), so it is visible now.
    const listed = await beneficiaryIds(user);

    // assess
    expect(replies.map((reply) => reply.status)).toEqual(amounts.map(() => 202));
    expect(ended.map((deposit) => deposit.status)).toEqual(amounts.map(() => 'done'));
    expect(listed).toHaveLength(1);
    expect(bank.transfers).toHaveLength(10);
    expect(bank.transfers.map((transfer) => transfer.reference).sort()).toEqual(
      ended.map((deposit) => deposit.reference).sort(),
    );
    expect(new Set(bank.transfers.map((transfer) => transfer.receiver.beneficiaryID))).toEqual(
      new Set(listed),
    );
    const sumMinor = amounts.reduce((sum, amount) => sum + cents(amount), 0);
    expect(bank.balanceMinor).toBe(cents(user.balance) - sumMinor);
    // No transfer before the one beneficiary's cool-down (3.6 s from its creation, after the start)
    // was over: the first ones waited it out, however long the machine took to get there.
    const firstTransferAt = Math.min(...bank.transfers.map((transfer) => Date.parse(transfer.createdAt)));
    expect(firstTransferAt - startedAt).toBeGreaterThanOrEqual(3_600);
  });

  it('5 deposits on an OTP bank: they ask one at a time, each answer moves one on, all done', async ({
    expect,
  }) => {
    // prepare
    const user = await createUser('SANDBOX_OTP');
    const count = 5;
    const keys = Array.from({ length: count }, () => randomUUID());
    const amounts = Array.from({ length: count }, (_, index) => (1_001 + index) / 100);

    // act
    const replies = await Promise.all(
      amounts.map((amount, index) => startDeposit(user, { amount }, keys[index])),
    );
    const ids = replies.map((reply) => reply.body.operationID as string);
    const prompts: { id: string; step: string }[] = [];
    const answers: Reply[] = [];
    const answered = new Set<string>();
    let mostWaitingAtOnce = 0;
    const ended = await eventually(async () => {
      const reads = await Promise.all(ids.map((id) => readDeposit(user, id)));
      const deposits = reads.map((read) => read.body);
      const waiting = deposits.filter((deposit) => deposit.status === 'user_input_required');
      mostWaitingAtOnce = Math.max(mostWaitingAtOnce, waiting.length);
      for (const deposit of waiting) {
        const question = `${deposit.operationID} ${deposit.inputExpiresAt}`;
        if (answered.has(question)) continue;
        answered.add(question);
        prompts.push({ id: deposit.operationID, step: deposit.step });
        const index = ids.indexOf(deposit.operationID);
        answers.push(
          await startDeposit(
            user,
            { amount: amounts[index] ?? 0, userInputs: otpAnswer(deposit) },
            keys[index],
          ),
        );
      }
      const over = deposits.every((deposit) => deposit.status === 'done' || deposit.status === 'failed');
      return over ? deposits : undefined;
    }, 60_000);
    const bank = await sandboxState(user);
    const listed = await beneficiaryIds(user);

    // assess
    expect(replies.map((reply) => reply.status)).toEqual(amounts.map(() => 202));
    expect(ended.map((deposit) => deposit.status)).toEqual(amounts.map(() => 'done'));
    expect(mostWaitingAtOnce).toBe(1);
    // One question to create the one beneficiary, then one per transfer.
    expect(prompts.filter((prompt) => prompt.step === 'ensure-beneficiary')).toHaveLength(1);
    expect(
      prompts
        .filter((prompt) => prompt.step === 'transfer')
        .map((prompt) => prompt.id)
        .sort(),
    ).toEqual([...ids].sort());
    expect(answers.map((answer) => answer.status)).toEqual(prompts.map(() => 200));
    expect(listed).toHaveLength(1);
    expect(bank.transfers).toHaveLength(count);
    expect(bank.transfers.map((transfer) => transfer.reference).sort()).toEqual(
      ended.map((deposit) => deposit.reference).sort(),
    );
    const sumMinor = amounts.reduce((sum, amount) => sum + cents(amount), 0);
    expect(bank.balanceMinor).toBe(cents(user.balance) - sumMinor);
  });
});
