/**
 * The deposits API's idempotency, over real HTTP against the local stack: a repeated create answers
 * the same deposit and transfers once, sent again or five times at once; the same key for another
 * request is refused; keys are kept per connection.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { depositWhen, startDeposit } from '../support/deposits.ts';
import { createUser, failed } from '../support/sandbox.ts';

describe('deposits API: idempotency', () => {
  it('answers a repeated request with the same deposit, and transfers once', async () => {
    // prepare
    const user = await createUser('SANDBOX_BENEFICIARY');
    const key = `same-key-${randomUUID()}`;

    // act
    const first = await startDeposit(user, { amount: 33.5 }, key);
    const repeatedInFlight = await startDeposit(user, { amount: 33.5 }, key);
    const done = await depositWhen(user, first.body.operationID);
    const repeatedWhenDone = await startDeposit(user, { amount: 33.5 }, key);
    const bank = await user.state();

    // assess
    expect(first.status).toBe(202);
    expect(repeatedInFlight.status).toBe(200);
    expect(repeatedInFlight.body.operationID).toBe(first.body.operationID);
    expect(repeatedWhenDone.status).toBe(200);
    expect(repeatedWhenDone.body).toMatchObject({
      operationID: first.body.operationID,
      status: 'done',
      step: 'completed',
      reference: done.reference,
    });
    expect(bank.transfers).toHaveLength(1);
    expect(bank.transfers[0]).toMatchObject({ amount: 33.5, reference: done.reference });
    expect(bank.accounts[0].balance).toBe(user.balance - 33.5);
  });

  it('answers the same request sent five times at once with one deposit, and transfers once', async () => {
    const user = await createUser('SANDBOX_BENEFICIARY');
    const key = `at-once-${randomUUID()}`;

    const replies = await Promise.all(
      Array.from({ length: 5 }, () => startDeposit(user, { amount: 14 }, key)),
    );
    const ids = new Set(replies.map((reply) => reply.body.operationID));
    const [id] = [...ids];
    const done = await depositWhen(user, String(id));

    expect(replies.map((reply) => reply.status).sort()).toEqual([200, 200, 200, 200, 202]);
    expect(ids.size).toBe(1);
    expect(done.status).toBe('done');
    expect((await user.state()).transfers).toHaveLength(1);
  });

  it('refuses the same key for a different request: IDEMPOTENCY_KEY_REUSED', async () => {
    const user = await createUser('SANDBOX_BENEFICIARY');
    const key = `reused-${randomUUID()}`;
    const first = await startDeposit(user, { amount: 20 }, key);

    const otherAmount = await startDeposit(user, { amount: 21 }, key);
    const otherWallet = await startDeposit(user, { amount: 20, walletAccountID: 'wallet-kwd' }, key);
    const done = await depositWhen(user, first.body.operationID);

    expect(first.status).toBe(202);
    expect(otherAmount.status).toBe(409);
    expect(otherAmount.body).toEqual(failed('IDEMPOTENCY_KEY_REUSED'));
    expect(otherAmount.body.operationID).toBeUndefined();
    expect(otherWallet.status).toBe(409);
    expect(otherWallet.body).toEqual(failed('IDEMPOTENCY_KEY_REUSED'));
    expect(done).toMatchObject({ status: 'done', amount: 20 });
    expect((await user.state()).transfers).toHaveLength(1);
  });

  it('keeps keys per connection: another user may use the same key for their own deposit', async () => {
    const alice = await createUser('SANDBOX_BENEFICIARY');
    const bob = await createUser('SANDBOX_BENEFICIARY');
    const key = `shared-${randomUUID()}`;

    const forAlice = await startDeposit(alice, { amount: 15 }, key);
    const forBob = await startDeposit(bob, { amount: 16 }, key);
    const aliceDone = await depositWhen(alice, forAlice.body.operationID);
    const bobDone = await depositWhen(bob, forBob.body.operationID);

    expect(forAlice.status).toBe(202);
    expect(forBob.status).toBe(202);
    expect(forBob.body.operationID).not.toBe(forAlice.body.operationID);
    expect(aliceDone).toMatchObject({ status: 'done', amount: 15 });
    expect(bobDone).toMatchObject({ status: 'done', amount: 16 });
    expect((await alice.state()).transfers.map((t: { amount: number }) => t.amount)).toEqual([15]);
    expect((await bob.state()).transfers.map((t: { amount: number }) => t.amount)).toEqual([16]);
  });
});
