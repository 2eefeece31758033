/**
 * A repeat deposit from a connection makes exactly one provider operation, its transfer (and reads
 * its outcome back, `/v2/operation/get`, which changes nothing): the bank's metadata is remembered
 * for the connection (BANK_MEMORY_SECONDS) and the beneficiary is on record. Proven over the running
 * stack by making every other call fail for the repeat: it is done anyway, with nothing retried.
 */
import { describe, expect, it } from 'vitest';
import {
  depositWhen,
  otpAnswer,
  providerPath,
  readsTransferBack,
  startDeposit,
} from '../support/deposits.ts';
import { createUser, setFaults, stateOf } from '../support/sandbox.ts';

const everyCallButTheTransfer = (['metadata', 'beneficiariesGet', 'beneficiariesCreate'] as const).map(
  (call) => ({ outcome: 'error', status: 503, path: providerPath(call), times: 100 }),
);

describe('a repeat deposit', () => {
  it('asks the bank for nothing but the transfer (and its outcome)', async () => {
    // prepare
    const user = await createUser('SANDBOX_BENEFICIARY');
    const first = await startDeposit(user, { amount: 20 });
    expect((await depositWhen(user, first.body.operationID)).status).toBe('done');
    await setFaults(user, everyCallButTheTransfer);

    // act
    const repeat = await startDeposit(user, { amount: 21 });
    const done = await depositWhen(user, repeat.body.operationID);

    // assess
    expect(done.status).toBe('done');
    expect(done.history.map((entry: { step: string; note?: string }) => [entry.step, entry.note])).toEqual([
      // The bank remembered and our record of the beneficiary: no metadata, no list, no creation,
      // and the deposit starts at the transfer.
      ['transfer', 'bank and beneficiary remembered: Sandbox Beneficiary Bank'],
      ...(readsTransferBack
        ? [['reconcile', expect.stringMatching(/^transfer submitted as operation op_/)]]
        : []),
      ['completed', undefined],
    ]);
    expect((await stateOf(user)).transfers.map((transfer) => transfer.amount)).toEqual([20, 21]);
  });

  it('at a bank that asks on its metadata and its list, asks the caller nothing the second time', async () => {
    // prepare
    const user = await createUser('SANDBOX_OTP_READS');
    const key = 'first-deposit';
    const first = await startDeposit(user, { amount: 20 }, key);
    for (let question = 0; question < 3; question += 1) {
      const asked = await depositWhen(
        user,
        first.body.operationID,
        (deposit) => deposit.status !== 'initialized',
      );
      if (asked.status !== 'user_input_required') break;
      await startDeposit(user, { amount: 20, userInputs: otpAnswer(asked) }, key);
      await depositWhen(user, first.body.operationID, (deposit) => deposit.updatedAt !== asked.updatedAt);
    }
    expect((await depositWhen(user, first.body.operationID)).status).toBe('done');
    await setFaults(user, everyCallButTheTransfer);

    // act
    const repeat = await startDeposit(user, { amount: 22 });
    const done = await depositWhen(user, repeat.body.operationID);

    // assess
    expect(done.status).toBe('done');
    expect(done.history.some((entry: { status: string }) => entry.status === 'user_input_required')).toBe(
      false,
    );
  });
});
