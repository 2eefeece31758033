/**
 * Reading a deposit through the deposits API, over real HTTP against the local stack: an unknown id,
 * a done deposit with its history and no secret, a read without the user's token by the backend that
 * created it alone, and a deposit waiting for the user's input, read and then resumed.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { depositWhen, otpAnswer, rawCall, readDeposit, startDeposit } from '../support/deposits.ts';
import { appSecret, createUser, failed } from '../support/sandbox.ts';

/** Every key of a JSON value, however deep. */
function allKeys(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(allKeys);
  if (value && typeof value === 'object') {
    return Object.entries(value).flatMap(([key, inner]) => [key, ...allKeys(inner)]);
  }
  return [];
}

describe('deposits API: reading a deposit', () => {
  it('answers an unknown id with DEPOSIT_NOT_FOUND', async () => {
    const user = await createUser('SANDBOX_BENEFICIARY');

    const answer = await readDeposit(user, `dep_${randomUUID()}`);

    expect(answer.status).toBe(404);
    expect(answer.body).toEqual(failed('DEPOSIT_NOT_FOUND'));
  });

  it('shows a done deposit with its history and without any secret', async () => {
    const user = await createUser('SANDBOX_BENEFICIARY');
    const started = await startDeposit(user, { amount: 47.1 });
    await depositWhen(user, started.body.operationID);

    const read = await readDeposit(user, started.body.operationID);

    expect(read.status).toBe(200);
    const view = read.body;
    expect(view).toMatchObject({
      operationID: started.body.operationID,
      success: true,
      status: 'done',
      step: 'completed',
      amount: 47.1,
      currency: 'AED',
      walletAccountID: 'wallet-aed',
      reference: expect.any(String),
    });
    const iso = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
    expect(view.createdAt).toMatch(iso);
    expect(view.updatedAt).toMatch(iso);
    expect(Date.parse(view.updatedAt)).toBeGreaterThanOrEqual(Date.parse(view.createdAt));
    expect(view.history.length).toBeGreaterThanOrEqual(2);
    for (const entry of view.history) {
      expect(entry).toMatchObject({ step: expect.any(String), status: expect.any(String) });
      expect(entry.at).toMatch(iso);
    }
    expect(view.history[0]).toMatchObject({ step: 'resolve-bank', status: 'initialized' });
    expect(view.history.at(-1)).toMatchObject({ step: 'completed', status: 'done' });
    const keys = allKeys(view);
    expect(keys.filter((key) => /sealed|secret|token/i.test(key))).toEqual([]);
    const text = JSON.stringify(view);
    expect(text).not.toContain(user.accessToken);
    expect(text).not.toContain(user.userSecret);
    expect(text).not.toContain(appSecret);
  });

  it('answers a read without a bearer token to the backend that created it, and to no other', async () => {
    const user = await createUser('SANDBOX_BENEFICIARY');
    const started = await startDeposit(user, { amount: 10 });
    const body = { appSecret, userSecret: user.userSecret, operationID: started.body.operationID };

    const byItsBackend = await rawCall('POST', '/v1/deposits/get', { body });
    const byAnother = await rawCall('POST', '/v1/deposits/get', {
      headers: { 'x-local-caller': 'another-backend' },
      body,
    });

    expect(started.status).toBe(202);
    expect(byItsBackend.status).toBe(200);
    expect(byItsBackend.body.operationID).toBe(started.body.operationID);
    expect(byAnother.status).toBe(404);
    expect(byAnother.body).toEqual(failed('DEPOSIT_NOT_FOUND'));
  });
});

describe('deposits API: a deposit waiting for input', () => {
  it('answers a repeat without userInputs with the deposit as it stands; a repeat with them resumes it', async () => {
    const user = await createUser('SANDBOX_OTP');
    const key = `waiting-${randomUUID()}`;
    const started = await startDeposit(user, { amount: 40 }, key);
    const asked = await depositWhen(user, started.body.operationID, (d) => d.status !== 'initialized');

    const repeated = await startDeposit(user, { amount: 40 }, key);
    const stillWaiting = await readDeposit(user, started.body.operationID);
    const answered = await startDeposit(user, { amount: 40, userInputs: otpAnswer(asked) }, key);
    const next = await depositWhen(
      user,
      started.body.operationID,
      (d) => d.step !== 'ensure-beneficiary' && d.status !== 'initialized',
    );

    expect(asked).toMatchObject({
      status: 'user_input_required',
      step: 'ensure-beneficiary',
      userInputs: [{ id: 'otp', answer: '' }],
      inputExpiresAt: expect.any(String),
    });
    expect(repeated.status).toBe(200);
    expect(repeated.body).toMatchObject({
      operationID: started.body.operationID,
      status: 'user_input_required',
      step: 'ensure-beneficiary',
      userInputs: asked.userInputs,
    });
    expect(stillWaiting.body.status).toBe('user_input_required');
    expect(stillWaiting.body.updatedAt).toBe(asked.updatedAt);
    expect(answered.status).toBe(200);
    expect(answered.body).toMatchObject({ operationID: started.body.operationID, status: 'initialized' });
    expect(answered.body.userInputs).toBeUndefined();
    // The beneficiary was created with the answer; the bank now asks again, for the transfer.
    expect(next).toMatchObject({ status: 'user_input_required', step: 'transfer' });
    expect((await user.state()).transfers).toEqual([]);
  });
});
