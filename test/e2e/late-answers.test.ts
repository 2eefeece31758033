/**
 * A bank's wait that ran out is not a failed deposit, over the running stack: an OTP user whose bank
 * waits only 4 s for the answer, and whose first three reads of the transfer operation fail (the
 * sandbox's fault rules). By the fourth read (some 15 s after the submission) the bank has failed the
 * operation USER_INPUT_EXPIRED; nothing moved, so the transfer asks again, its caller answers the new
 * question, and the deposit ends done with exactly one transfer in the bank's ledger.
 */
import { describe, expect, it } from 'vitest';
import { depositWhen, otpAnswer, readDeposit, startDeposit } from '../support/deposits.ts';
import { createUser, eventually, setFaults, stateOf } from '../support/sandbox.ts';

type Entry = { step: string; status: string; note?: string };

describe('the bank stopped waiting for the answer', () => {
  it('three lost reads at an OTP bank with a short wait: asked again, answered, done with one transfer', async () => {
    // prepare
    const user = await createUser('SANDBOX_OTP', { inputTtlSeconds: 4 });
    await setFaults(user, [{ path: '/v2/operation/get', outcome: 'error', status: 503, times: 3 }]);
    const request = { amount: 57 };
    const key = `late-answers-${user.connectionID}`;

    // act: the caller answers every question it is shown (the beneficiary's, then the transfer's)
    const started = await startDeposit(user, request, key);
    const id: string = started.body.operationID;
    const answered = new Set<string>();
    const done = await eventually(async () => {
      const { body } = await readDeposit(user, id);
      if (body.status === 'done' || body.status === 'failed') return body;
      if (body.status === 'user_input_required' && !answered.has(body.inputExpiresAt)) {
        const reply = await startDeposit(user, { ...request, userInputs: otpAnswer(body) }, key);
        if (reply.status === 200) answered.add(body.inputExpiresAt);
      }
      return undefined;
    }, 45_000);

    // assess
    expect(done).toMatchObject({ status: 'done', reference: expect.any(String) });
    const notes = (done.history as Entry[]).map((entry) => entry.note ?? '');
    expect(notes).toContain('transfer outcome, read 3: the read failed (server_error)');
    expect(notes).toContain('answers refused (USER_INPUT_EXPIRED): asking again');
    const bank = await stateOf(user);
    expect(bank.transfers).toHaveLength(1);
    expect(bank.transfers[0]?.reference).toBe(done.reference);
    await expect(depositWhen(user, id)).resolves.toMatchObject({ status: 'done' });
  }, 60_000);
});
