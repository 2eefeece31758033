/**
 * A provider that fails, end to end on the local stack: the sandbox's per-user fault rules (POST
 * /sandbox/faults) time out or answer 5xx on the transfer, the beneficiary's creation and the
 * metadata read. A transfer whose outcome is not known fails for an operator to settle, never sent
 * twice; the other calls are retried and the deposit is done.
 */
import { describe, it } from 'vitest';
import {
  beneficiaries,
  cents,
  expectStillUntilSwept,
  type HistoryEntry,
  holdsFor,
  sandboxState,
  settled,
} from '../support/deposit-checks.ts';
import { armCrash, providerPath, startDeposit } from '../support/deposits.ts';
import { ops } from '../support/operator.ts';
import { createUser, setFaults } from '../support/sandbox.ts';

const TRANSFER = providerPath('transferCreate');
const METADATA = providerPath('metadata');

describe.concurrent('the provider fails', () => {
  it.for([
    {
      name: 'timeout after the bank moved the money',
      fault: { outcome: 'timeout', timeoutMs: 2_500, phase: 'after' },
      reason: 'timeout',
      transfers: 1,
      label: 'one transfer',
    },
    {
      name: 'timeout before the bank saw it',
      fault: { outcome: 'timeout', timeoutMs: 2_500, phase: 'before' },
      reason: 'timeout',
      transfers: 0,
      label: 'no transfer',
    },
    {
      name: '503 after the bank moved the money',
      fault: { outcome: 'error', status: 503, phase: 'after' },
      reason: 'server_error',
      transfers: 1,
      label: 'one transfer',
    },
  ])(
    'transfer $name: failed TRANSFER_OUTCOME_UNKNOWN, $label, never two',
    async ({ fault, reason, transfers }, { expect }) => {
      // prepare
      const user = await createUser('SANDBOX_BENEFICIARY');
      // fault: the sandbox fails the user's next transfer call (PROVIDER_TIMEOUT_MS is 2000)
      await setFaults(user, [{ path: TRANSFER, times: 1, ...fault }]);

      // act
      const started = await startDeposit(user, { amount: 60 });
      const ended = await settled(user, started.body.operationID);
      await holdsFor(1_500, async () => {
        expect((await sandboxState(user)).transfers).toHaveLength(transfers);
      });
      const bank = await sandboxState(user);
      const detail = await ops('/v1/ops/deposits/get', { operationID: started.body.operationID });

      // assess: the owner hears the fixed message; the operators read which fault it was
      expect(ended).toMatchObject({
        success: false,
        status: 'failed',
        type: 'TRANSFER_OUTCOME_UNKNOWN',
        msg: "The transfer's outcome is not known: an operator will settle it with the bank",
      });
      expect(detail.body.msg).toContain(reason);
      expect(bank.transfers).toHaveLength(transfers);
      expect(bank.balanceMinor).toBe(cents(user.balance) - cents(60) * transfers);
    },
  );

  it('a timeout after the beneficiary was created, at a bank that hides new ones: still one beneficiary, all done', async ({
    expect,
  }) => {
    // prepare
    const user = await createUser('SANDBOX_COOLDOWN_FAST');
    // fault: the sandbox creates the beneficiary, then holds the answer past PROVIDER_TIMEOUT_MS
    await setFaults(user, [
      {
        path: providerPath('beneficiariesCreate'),
        outcome: 'timeout',
        timeoutMs: 2_500,
        phase: 'after',
        times: 1,
      },
    ]);

    // act
    const started = await Promise.all([
      startDeposit(user, { amount: 21 }),
      startDeposit(user, { amount: 22 }),
    ]);
    const ended = await Promise.all(started.map((reply) => settled(user, reply.body.operationID, 30_000)));
    const bank = await sandboxState(user);

    // assess
    expect(ended.map((deposit) => `${deposit.status} ${deposit.type ?? ''}`.trim())).toEqual([
      'done',
      'done',
    ]);
    expect(bank.transfers).toHaveLength(2);
    expect(await beneficiaries(user)).toHaveLength(1);
  });

  it('resolve-bank dying after the write of its retry: still until swept, then done with one transfer', async ({
    expect,
  }) => {
    // prepare
    const user = await createUser('SANDBOX_BENEFICIARY');
    // fault: the first metadata read answers 503, so the step's first write is its retry (as when a
    // slow machine times the call out), and the step dies right after that write
    await setFaults(user, [{ path: METADATA, outcome: 'error', status: 503, times: 1 }]);
    await armCrash(user, 'after-state-write', { step: 'resolve-bank' });

    // act
    const started = await startDeposit(user, { amount: 12 });
    const done = await settled(user, started.body.operationID);

    // assess
    expect(done).toMatchObject({ status: 'done', reference: expect.any(String) });
    const history = done.history as HistoryEntry[];
    expect(history[1]).toMatchObject({ step: 'resolve-bank', note: 'provider server_error' });
    await expectStillUntilSwept(expect, done, 'resolve-bank');
    expect((await sandboxState(user)).transfers.map((transfer) => transfer.reference)).toEqual([
      done.reference,
    ]);
  });

  it('a 503 on the metadata read is retried and the deposit is done', async ({ expect }) => {
    // prepare
    const user = await createUser('SANDBOX_BENEFICIARY');
    // fault: the sandbox answers 503 to the user's next two metadata reads
    await setFaults(user, [{ path: METADATA, outcome: 'error', status: 503, times: 2 }]);

    // act
    const started = await startDeposit(user, { amount: 15 });
    const done = await settled(user, started.body.operationID);
    const bank = await sandboxState(user);

    // assess
    expect(done).toMatchObject({ status: 'done', reference: expect.any(String) });
    const retries = (done.history as HistoryEntry[]).filter(
      (entry) => entry.step === 'resolve-bank' && entry.note === 'provider server_error',
    );
    expect(retries.length).toBeGreaterThanOrEqual(1);
    expect(retries.length).toBeLessThanOrEqual(2);
    expect(bank.transfers.map((transfer) => transfer.reference)).toEqual([done.reference]);
    expect(bank.balanceMinor).toBe(cents(user.balance) - cents(15));
  });
});
