/**
 * One operation at a time per connection: a slow operation (latency fault, spent while
 * it holds the connection) makes a parallel one on the same connection fail with
 * `409 OPERATION_IN_PROGRESS`; other users are not blocked; and a burst of transfers never debits
 * more than the transfers it reports done.
 *
 * In process: the sandbox's routes composed as their handlers are, over its in-memory fake store (the
 * sanctioned stand-in for its table) and a manual clock (`test/support/in-process-sandbox.ts`).
 */
import { describe, expect, it } from 'vitest';
import {
  createUser,
  failed,
  givenBeneficiary,
  type Reply,
  setFaults,
  stateOf,
} from '../support/in-process-sandbox.ts';

const isDone = (reply: Reply) => reply.status === 200 && reply.body.status === 'done';
const isInProgress = (reply: Reply) => reply.status === 409 && reply.body.type === 'OPERATION_IN_PROGRESS';

describe('one operation at a time on a connection', () => {
  it('refuses the second of two parallel transfers on a slow connection (per-user latency rule)', async () => {
    // prepare
    const user = await createUser('SANDBOX_BENEFICIARY');
    const receiverID = await givenBeneficiary(user);
    await setFaults(user, [{ latencyMs: 800 }]);
    const before = await stateOf(user);
    const transfer = () =>
      user.call('/v1/payment/transfer/create', {
        sync: true,
        amount: 30,
        senderID: user.accountId,
        receiverID,
      });

    // act
    const replies = await Promise.all([transfer(), transfer()]);
    const after = await stateOf(user);

    // assess
    const done = replies.filter(isDone);
    const refused = replies.filter((reply) => !isDone(reply));
    expect(done, JSON.stringify(replies)).toHaveLength(1);
    expect(refused).toHaveLength(1);
    expect(refused[0]?.status).toBe(409);
    expect(refused[0]?.body).toEqual(failed('OPERATION_IN_PROGRESS'));
    expect(after.balance).toBe(before.balance - 30);
    expect(after.transfers).toEqual([expect.objectContaining({ reference: done[0]?.body.reference })]);
  });

  it('refuses a parallel operation while a slow one (latency header) holds the connection, then frees it', async () => {
    // prepare
    const user = await createUser('SANDBOX_BENEFICIARY');
    const slow = { 'x-sandbox-latency-ms': '800' };

    // act
    const replies = await Promise.all([
      user.call('/v1/metadata/accounts/get', { sync: true }, slow),
      user.call('/v1/payment/beneficiaries/get', { sync: true }, slow),
    ]);
    const afterwards = await user.call('/v1/payment/beneficiaries/get', { sync: true });

    // assess
    expect(replies.filter(isDone), JSON.stringify(replies)).toHaveLength(1);
    expect(replies.filter(isInProgress), JSON.stringify(replies)).toHaveLength(1);
    expect(afterwards.status).toBe(200);
    expect(afterwards.body).toMatchObject({ success: true, status: 'done' });
  });

  it('does not let one user block another: both slow operations succeed in parallel', async () => {
    // prepare
    const first = await createUser('SANDBOX_BENEFICIARY');
    const second = await createUser('SANDBOX_BENEFICIARY');
    await setFaults(first, [{ latencyMs: 800 }]);
    await setFaults(second, [{ latencyMs: 800 }]);

    // act
    const replies = await Promise.all([
      first.call('/v1/metadata/accounts/get', { sync: true }),
      second.call('/v1/metadata/accounts/get', { sync: true }),
    ]);

    // assess
    for (const reply of replies) {
      expect(reply.status, JSON.stringify(reply.body)).toBe(200);
      expect(reply.body).toMatchObject({ success: true, status: 'done' });
    }
    expect(replies[0]?.body.jobID).not.toBe(replies[1]?.body.jobID);
  });

  it('never debits more than the transfers it answers done, under 10 concurrent transfers', async () => {
    // prepare
    const user = await createUser('SANDBOX_BENEFICIARY');
    const receiverID = await givenBeneficiary(user);
    const before = await stateOf(user);
    const amount = 12.34;

    // act
    const replies = await Promise.all(
      Array.from({ length: 10 }, () =>
        user.call('/v1/payment/transfer/create', {
          sync: true,
          amount,
          senderID: user.accountId,
          receiverID,
        }),
      ),
    );
    const after = await stateOf(user);

    // assess
    const done = replies.filter(isDone);
    const unexpected = replies.filter((reply) => !isDone(reply) && !isInProgress(reply));
    expect(unexpected, JSON.stringify(unexpected)).toEqual([]);
    expect(done.length).toBeGreaterThanOrEqual(1);
    expect(after.transfers).toHaveLength(done.length);
    expect(after.balance).toBeCloseTo(before.balance - done.length * amount, 2);
    expect(after.transfers.map((transfer) => transfer.reference).sort()).toEqual(
      done.map((reply) => reply.body.reference).sort(),
    );
  });
});
