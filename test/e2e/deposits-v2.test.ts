/**
 * Every provider call a deposit makes in the `dapi-v2` dialect is a v2 call: run
 * by the `e2e-v2` project only, against its shared stack, whose provider client speaks v2 (the rest
 * of the deposit files run there too, in both dialects). One deposit per flow: scenario 1, a bank that
 * asks its questions (resumed with `operationID`), and scenario 3's inline receiver.
 */
import { describe, expect, it } from 'vitest';
import { dapiV2Dialect, sharedPaths } from '#shared/provider/interface/dialects';
import {
  depositWhen,
  otpAnswer,
  providerDialect,
  startDeposit,
  stepsOf,
  takeProviderCalls,
} from '../support/deposits.ts';
import { createUser } from '../support/sandbox.ts';

const v2Paths = new Set(Object.values(dapiV2Dialect.paths));
const v2Only = (calls: string[]) => calls.length > 0 && calls.every((path) => v2Paths.has(path));

describe('deposits with the provider client in dapi-v2', () => {
  it('runs against a stack that speaks dapi-v2', () => {
    expect(providerDialect.name).toBe('dapi-v2');
  });

  it('scenario 1: the beneficiary created and listed, the transfer to it, all in v2', async () => {
    // prepare
    const user = await createUser('SANDBOX_BENEFICIARY');

    // act
    const started = await startDeposit(user, { amount: 150.25 });
    const done = await depositWhen(user, started.body.operationID);
    const calls = await takeProviderCalls(user);

    // assess
    expect(done).toMatchObject({ status: 'done', reference: expect.any(String) });
    expect(stepsOf(done)).toEqual(['resolve-bank', 'ensure-beneficiary', 'transfer', 'completed']);
    expect(v2Only(calls), JSON.stringify(calls)).toBe(true);
    expect(calls).toContain(dapiV2Dialect.paths.beneficiariesCreate);
    expect(calls.filter((path) => !sharedPaths().includes(path)).length).toBeGreaterThan(0);
    expect((await user.state()).transfers).toHaveLength(1);
  });

  it('an OTP bank: the questions resumed with operationID, all in v2', async () => {
    // prepare
    const user = await createUser('SANDBOX_OTP');
    const key = 'otp-deposit-v2';

    // act
    const started = await startDeposit(user, { amount: 75 }, key);
    const id = started.body.operationID;
    const first = await depositWhen(user, id, (d) => d.status === 'user_input_required');
    await startDeposit(user, { amount: 75, userInputs: otpAnswer(first) }, key);
    const second = await depositWhen(
      user,
      id,
      (d) => d.status === 'user_input_required' && d.step === 'transfer',
    );
    await startDeposit(user, { amount: 75, userInputs: otpAnswer(second) }, key);
    const done = await depositWhen(user, id);
    const calls = await takeProviderCalls(user);

    // assess
    expect(done).toMatchObject({ status: 'done', reference: expect.any(String) });
    expect(v2Only(calls), JSON.stringify(calls)).toBe(true);
    expect((await user.state()).transfers).toHaveLength(1);
  });

  it('scenario 3: autoflow with the receiver inline, all in v2', async () => {
    // prepare
    const user = await createUser('SANDBOX_NO_BENEFICIARY');

    // act
    const started = await startDeposit(user, { amount: 99.99 });
    const done = await depositWhen(user, started.body.operationID);
    const calls = await takeProviderCalls(user);

    // assess
    expect(done).toMatchObject({ status: 'done' });
    expect(calls).toContain(dapiV2Dialect.paths.transferAutoflow);
    expect(v2Only(calls), JSON.stringify(calls)).toBe(true);
    const [transfer] = (await user.state()).transfers;
    expect(transfer).toMatchObject({ amount: 99.99 });
  });
});
