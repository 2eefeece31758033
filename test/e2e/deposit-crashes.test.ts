/**
 * Steps that die, end to end on the local stack: at each crash point (POST /_local/crash, armed per
 * user) in each step, and a message lost with a step that died after its write. The invariants:
 * never two transfers for one deposit, never a stranded deposit (it always ends done or failed), one
 * beneficiary per connection and wallet.
 */
import { describe, it } from 'vitest';
import {
  beneficiaries,
  type CrashPoint,
  cents,
  expectRanAgainAfterDeath,
  expectStillUntilSwept,
  type Step,
  sandboxState,
  settled,
} from '../support/deposit-checks.ts';
import { armCrash, depositWhen, startDeposit, stepsOf, transferSteps } from '../support/deposits.ts';
import { createUser } from '../support/sandbox.ts';

describe.concurrent('a step that crashes', () => {
  const recovering: [Step, CrashPoint][] = (['resolve-bank', 'ensure-beneficiary'] as const).flatMap((step) =>
    (['before-provider-call', 'after-provider-call', 'before-state-write', 'after-state-write'] as const).map(
      (point): [Step, CrashPoint] => [step, point],
    ),
  );

  it.for(recovering)(
    '%s crashing %s: done, one transfer, one beneficiary',
    async ([step, point], { expect }) => {
      // prepare
      const user = await createUser('SANDBOX_BENEFICIARY');
      // fault: the step dies once at this crash point
      await armCrash(user, point, { step });

      // act
      const started = await startDeposit(user, { amount: 25.5 });
      const done = await settled(user, started.body.operationID);
      const bank = await sandboxState(user);

      // assess
      expect(started.status).toBe(202);
      expect(done.type).toBeUndefined();
      expect(done).toMatchObject({ status: 'done', step: 'completed', reference: expect.any(String) });
      expect(bank.transfers.map((transfer) => transfer.reference)).toEqual([done.reference]);
      expect(bank.balanceMinor).toBe(cents(user.balance) - cents(25.5));
      expect(await beneficiaries(user)).toHaveLength(1);
      expect(stepsOf(done)).toEqual(['resolve-bank', 'ensure-beneficiary', ...transferSteps, 'completed']);
      if (point === 'after-state-write') {
        // The state moved on but the next step's message was never sent: only the sweeper moves it,
        // after STALL_AFTER_SECONDS.
        await expectStillUntilSwept(expect, done, step);
      } else {
        // The step died there once, then ran again (SQS redelivered its message) and went on.
        await expectRanAgainAfterDeath(expect, done, step, point);
      }
    },
  );

  it.for([
    // The attempt is recorded before the call: a crash before the call looks like an interrupted
    // attempt, and an interrupted attempt is never retried blindly.
    { point: 'before-provider-call', transfers: 0, label: 'no transfer' },
    // The money moved, the answer was lost with the step: unknown, and never a second transfer.
    { point: 'after-provider-call', transfers: 1, label: 'one transfer' },
    // The first state write of the transfer step is the attempt record (the done write comes after
    // the call): dying after it is dying before the call.
    { point: 'after-state-write', transfers: 0, label: 'no transfer' },
  ] as const)(
    'transfer crashing $point: failed TRANSFER_OUTCOME_UNKNOWN, $label',
    async ({ point, transfers }, { expect }) => {
      // prepare
      const user = await createUser('SANDBOX_BENEFICIARY');
      // fault: the transfer step dies once at this crash point
      await armCrash(user, point, { step: 'transfer' });

      // act
      const started = await startDeposit(user, { amount: 31.25 });
      const ended = await settled(user, started.body.operationID);
      const bank = await sandboxState(user);

      // assess
      expect(ended).toMatchObject({
        success: false,
        status: 'failed',
        step: 'completed',
        type: 'TRANSFER_OUTCOME_UNKNOWN',
      });
      expect(ended.reference).toBeUndefined();
      expect(bank.transfers).toHaveLength(transfers);
      expect(bank.balanceMinor).toBe(cents(user.balance) - cents(31.25) * transfers);
      expect(await beneficiaries(user)).toHaveLength(1);
    },
  );

  it('transfer crashing before-state-write (before the attempt is recorded): done, one transfer', async ({
    expect,
  }) => {
    // prepare
    const user = await createUser('SANDBOX_BENEFICIARY');
    // fault: the transfer step dies once before its first state write (the attempt record)
    await armCrash(user, 'before-state-write', { step: 'transfer' });

    // act
    const started = await startDeposit(user, { amount: 12.34 });
    const done = await settled(user, started.body.operationID);
    const bank = await sandboxState(user);

    // assess
    expect(done).toMatchObject({ status: 'done', reference: expect.any(String) });
    expect(bank.transfers.map((transfer) => transfer.reference)).toEqual([done.reference]);
    expect(bank.balanceMinor).toBe(cents(user.balance) - cents(12.34));
    // Nothing was recorded, so the step ran again once its message came back (and the dead
    // attempt's connection lease ran out).
    await expectRanAgainAfterDeath(expect, done, 'transfer', 'before-state-write');
  });

  it('a lost message (after-state-write in resolve-bank) is re-driven and the deposit is done within 15 s', async ({
    expect,
  }) => {
    // prepare
    const user = await createUser('SANDBOX_BENEFICIARY');
    // fault: resolve-bank dies right after its state write, so the ensure-beneficiary message is lost
    await armCrash(user, 'after-state-write', { step: 'resolve-bank' });

    // act
    const startedAt = Date.now();
    const started = await startDeposit(user, { amount: 44 });
    const stalled = await depositWhen(user, started.body.operationID, (d) => d.step !== 'resolve-bank');
    const done = await settled(user, started.body.operationID, 15_000);
    const tookMs = Date.now() - startedAt;

    // assess
    expect(stalled).toMatchObject({ status: 'initialized', step: 'ensure-beneficiary' });
    expect(done).toMatchObject({ status: 'done', reference: expect.any(String) });
    expect(tookMs).toBeLessThan(15_000);
    await expectStillUntilSwept(expect, done, 'resolve-bank');
    expect((await sandboxState(user)).transfers).toHaveLength(1);
    expect(await beneficiaries(user)).toHaveLength(1);
  });
});
