/**
 * The transfer's outcome, resolved instead of abandoned: the transfer is submitted with `sync: false`
 * (in the v2 dialect, which sends no `sync`, the provider holds it until its hold ends), its operation
 * id recorded with the `initialized` answer, and `reconcile` reads the operation until the bank says
 * how it ended. The banks here take a second or more over a transfer, so that in both dialects it is
 * still running when its submission answers. Over the running stack, with the sandbox's faults: the
 * operation completing later, the operation refused by the bank, and the one case that stays
 * unknown: the submission's own answer lost, with no id to read. The reads of the operation lost or
 * refused: `reconcile-reads.test.ts`.
 */
import { describe, expect, it } from 'vitest';
import {
  depositWhen,
  notesAt,
  providerPath,
  slowTransfers,
  startDeposit,
  webhookDeliveries,
} from '../support/deposits.ts';
import { createUser, eventually, setFaults, stateOf } from '../support/sandbox.ts';

describe('reconcile', () => {
  it('the operation completing later: read until done, one transfer, one deposit.done', async () => {
    // prepare: the bank takes 3 s to carry out a transfer (its reads answer in the stack's 400 ms),
    // so the transfer is still running at the first read, 1 s after its submission
    const user = await createUser('SANDBOX_BENEFICIARY', { transferDelaySeconds: 3 });

    // act
    const started = await startDeposit(user, { amount: 40 });
    const reconciling = await depositWhen(
      user,
      started.body.operationID,
      (d) => d.step === 'reconcile',
      40_000,
    );
    const done = await depositWhen(user, started.body.operationID, undefined, 30_000);

    // assess
    expect(reconciling.status).toBe('initialized');
    expect(done).toMatchObject({ status: 'done', step: 'completed', reference: expect.any(String) });
    const notes = notesAt(done, 'reconcile');
    expect(notes[0]).toMatch(/^transfer submitted as operation op_/);
    expect(notes).toContain('transfer outcome, read 1: still running');
    const bank = await stateOf(user);
    expect(bank.transfers).toHaveLength(1);
    expect(bank.transfers[0]?.reference).toBe(done.reference);
    const delivered = await eventually(async () => {
      const { deliveries } = await webhookDeliveries(started.body.operationID);
      return deliveries.some((event) => event.type === 'deposit.done') ? deliveries : undefined;
    });
    expect(delivered.filter((event) => event.type === 'deposit.done')[0]?.data).toMatchObject({
      reference: done.reference,
    });
  }, 90_000);

  it('the operation refused by the bank (insufficient balance): failed with its type, nothing moved', async () => {
    // prepare
    const user = await createUser('SANDBOX_BENEFICIARY', { balance: 10, ...slowTransfers });

    // act
    const started = await startDeposit(user, { amount: 25 });
    const failed = await depositWhen(user, started.body.operationID);

    // assess: the refusal came from the read of the operation, not from its submission
    expect(failed).toMatchObject({ status: 'failed', type: 'INSUFFICIENT_BALANCE' });
    expect(notesAt(failed, 'reconcile')[0]).toMatch(/^transfer submitted as operation op_/);
    const bank = await stateOf(user);
    expect(bank.transfers).toHaveLength(0);
    expect(bank.balance).toBe(10);
  });

  it("the submission's own answer lost: no id to read, so the outcome stays unknown for an operator", async () => {
    // prepare: the bank accepts the transfer, then its answer is lost
    const user = await createUser('SANDBOX_BENEFICIARY');
    await setFaults(user, [
      { path: providerPath('transferCreate'), outcome: 'error', status: 503, phase: 'after', times: 1 },
    ]);

    // act
    const started = await startDeposit(user, { amount: 42 });
    const ended = await depositWhen(user, started.body.operationID);

    // assess: the money moved, the deposit does not pretend to know, and nothing is sent twice
    expect(ended).toMatchObject({ status: 'failed', type: 'TRANSFER_OUTCOME_UNKNOWN' });
    expect(notesAt(ended, 'reconcile')).toEqual([]);
    expect((await stateOf(user)).transfers).toHaveLength(1);
  });
});
