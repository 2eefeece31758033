/**
 * The caller's cancel in the states `deposit-cancel-list.test.ts` does not reach: a deposit in the
 * middle of a step (resolve-bank, ensure-beneficiary) (its provider call held by the sandbox), one reading its transfer's outcome
 * (`reconcile`: money may be moving), and one that failed.
 */
import { describe, expect, it } from 'vitest';
import { cancelDeposit, depositWhen, providerPath, readDeposit, startDeposit } from '../support/deposits.ts';
import { createUser, setFaults, stateOf } from '../support/sandbox.ts';

describe('cancel, in the other states', () => {
  it("ends a deposit in the middle of resolve-bank: the step's late answer moves nothing", async () => {
    // prepare: the bank takes 3 s to answer the metadata call
    const user = await createUser('SANDBOX_BENEFICIARY');
    await setFaults(user, [{ path: providerPath('metadata'), latencyMs: 3_000, times: 1 }]);
    const started = await startDeposit(user, { amount: 30 });
    const id = String(started.body.operationID);

    // act: while the call is held
    const cancelled = await cancelDeposit(user, id);

    // assess: cancelled at once; once the call has answered, still cancelled, nothing moved
    expect(cancelled.body).toMatchObject({ status: 'failed', type: 'CANCELLED', step: 'completed' });
    await new Promise((later) => setTimeout(later, 4_000));
    const after = (await readDeposit(user, id)).body;
    expect(after).toMatchObject({ status: 'failed', type: 'CANCELLED' });
    expect(after.history).toEqual(cancelled.body.history);
    expect((await stateOf(user)).transfers).toEqual([]);
  });

  it('ends a deposit in the middle of ensure-beneficiary: the next deposit finds what the late step registered', async () => {
    // prepare: the bank takes 3 s to answer the beneficiary list
    const user = await createUser('SANDBOX_BENEFICIARY');
    await setFaults(user, [{ path: providerPath('beneficiariesGet'), latencyMs: 3_000, times: 1 }]);
    const started = await startDeposit(user, { amount: 32 });
    const id = String(started.body.operationID);
    await depositWhen(user, id, (deposit) => deposit.step === 'ensure-beneficiary');

    // act: while the list is held
    const cancelled = await cancelDeposit(user, id);

    // assess: cancelled and never moved again; a next deposit is done through one beneficiary
    expect(cancelled.body).toMatchObject({ status: 'failed', type: 'CANCELLED' });
    const next = await startDeposit(user, { amount: 33 });
    // The cancel gave the creation claim up: the next deposit takes it at once (the late step's
    // writes never take it back), and waits a second at a time for the connection's lease, which
    // the late step holds until the bank answers its list.
    expect(await depositWhen(user, String(next.body.operationID), undefined, 60_000)).toMatchObject({
      status: 'done',
    });
    expect((await readDeposit(user, id)).body.history).toEqual(cancelled.body.history);
    const listed = await user.call('/v1/payment/beneficiaries/get', { sync: true });
    expect(listed.body.beneficiaries).toHaveLength(1);
    expect((await stateOf(user)).transfers.map((transfer) => transfer.amount)).toEqual([33]);
    // Room for the next deposit's own 60 s wait, and the steps before it, on a loaded machine.
  }, 90_000);

  it('refuses a deposit reading its transfer outcome (reconcile), which then ends done', async () => {
    // prepare: the bank carries the transfer out 4 s after accepting it (its reads answer at once)
    const user = await createUser('SANDBOX_BENEFICIARY', { asyncDelaySeconds: 0, transferDelaySeconds: 4 });
    const started = await startDeposit(user, { amount: 31 });
    const id = String(started.body.operationID);
    await depositWhen(user, id, (deposit) => deposit.step === 'reconcile', 60_000);

    // act
    const refused = await cancelDeposit(user, id);

    // assess
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ type: 'DEPOSIT_NOT_CANCELLABLE' });
    expect(await depositWhen(user, id, undefined, 30_000)).toMatchObject({ status: 'done' });
    expect((await stateOf(user)).transfers).toHaveLength(1);
  }, 110_000);

  it('refuses a failed deposit, which stays as it failed', async () => {
    const user = await createUser('SANDBOX_BENEFICIARY');
    const started = await startDeposit(user, { amount: 0.5 });
    const id = String(started.body.operationID);
    const failed = await depositWhen(user, id);

    const refused = await cancelDeposit(user, id);

    expect(failed).toMatchObject({ status: 'failed', type: 'AMOUNT_BELOW_MINIMUM' });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ type: 'DEPOSIT_NOT_CANCELLABLE' });
    expect((await readDeposit(user, id)).body).toEqual(failed);
  });
});
