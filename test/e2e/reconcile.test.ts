/**
 * The transfer's outcome, resolved instead of abandoned: the transfer is submitted with `sync: false`
 * (in the v2 dialect, which sends no `sync`, the provider holds it until its hold ends), its operation
 * id recorded with the `initialized` answer, and `reconcile` reads the operation until the bank says
 * how it ended. The banks here take a second or more over a transfer, so that in both dialects it is
 * still running when its submission answers. Over the running stack, with the sandbox's faults: the operation completing later,
 * reads of it lost, the operation refused by the bank, and the one case that stays unknown: the
 * submission's own answer lost, with no id to read.
 */
import { describe, expect, it } from 'vitest';
import { depositWhen, providerPath, startDeposit, webhookDeliveries } from '../support/deposits.ts';
import { createUser, eventually, faultsOf, setFaults, stateOf } from '../support/sandbox.ts';

const OPERATION_GET = providerPath('operationGet');
/** A bank that carries a transfer out after the v2 stack's longest hold (500 ms): it is read back. */
const slowTransfers = { transferDelaySeconds: 1 };
type Entry = { step: string; status: string; note?: string };

function notesAt(deposit: Record<string, unknown>, step: string) {
  return (deposit.history as Entry[]).filter((entry) => entry.step === step).map((entry) => entry.note);
}

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

  it('reads of the operation lost (a 503, then a timeout): read again, done, one transfer', async () => {
    // prepare: the sandbox fails the next two reads of any operation of this user
    const user = await createUser('SANDBOX_BENEFICIARY', slowTransfers);
    await setFaults(user, [
      { path: OPERATION_GET, outcome: 'error', status: 503, times: 1 },
      { path: OPERATION_GET, outcome: 'timeout', timeoutMs: 2_500, times: 1 },
    ]);

    // act
    const started = await startDeposit(user, { amount: 41 });
    const done = await depositWhen(user, started.body.operationID, undefined, 30_000);

    // assess
    expect(done).toMatchObject({ status: 'done', reference: expect.any(String) });
    const notes = notesAt(done, 'reconcile');
    expect(notes, JSON.stringify(notes)).toContain(
      'transfer outcome, read 1: the read failed (server_error)',
    );
    // Both reads were lost: each rule went off once. The second is noted as a timeout, unless the
    // sweeper re-drove the deposit while that read hung (it stalls after the stack's 3 s, which a
    // loaded machine's slow steps and the 2 s read pass) and its read found the transfer done first.
    expect((await faultsOf(user)).map((rule) => rule.remaining)).toEqual([0, 0]);
    const second = notes.find((note) => note?.startsWith('transfer outcome, read 2:'));
    if (second !== undefined) expect(second).toBe('transfer outcome, read 2: the read failed (timeout)');
    expect((await stateOf(user)).transfers).toHaveLength(1);
  });

  it.for([
    { type: 'OPERATION_MISMATCH', status: 409 },
    { type: 'INVALID_ACCESS_CODE', status: 400 },
  ])(
    'a read refused $status $type, naming the operation: not a refusal of the transfer; read again, done, one transfer',
    async ({ type, status }) => {
      // prepare: the transfer is done at the bank; its first two reads are refused with an envelope
      // that names the transfer's operation (a provider that echoes the id in every failure)
      const user = await createUser('SANDBOX_BENEFICIARY', slowTransfers);
      const refusal = { path: OPERATION_GET, outcome: 'refusal', status, type, namesOperation: true };
      await setFaults(user, [{ ...refusal, times: 2 }]);

      // act
      const started = await startDeposit(user, { amount: 43 });
      const done = await depositWhen(user, started.body.operationID, undefined, 30_000);

      // assess: the fault fired, the deposit did not believe it, and the money moved once
      const notes = notesAt(done, 'reconcile');
      expect(notes, JSON.stringify(notes)).toContain(
        `transfer outcome, read 1: the read was refused (${type})`,
      );
      expect(done).toMatchObject({ status: 'done', reference: expect.any(String) });
      expect((await stateOf(user)).transfers).toHaveLength(1);
    },
  );

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
