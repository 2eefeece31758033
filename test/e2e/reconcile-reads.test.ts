/**
 * `reconcile`'s reads of the transfer's operation (`reconcile.test.ts` for the rest), when they go
 * wrong: lost (a 503, then a timeout), or refused with an envelope that names the transfer's own
 * operation. Either is read again, never taken for the transfer's outcome: the deposit ends done,
 * with one transfer. The bank takes a second over a transfer, so that in both dialects it is read
 * back. A file of its own beside `reconcile.test.ts`, so that the two run side by side; its tests
 * side by side too, each with a user of its own (one after the other, some 35 s).
 */
import { describe, it } from 'vitest';
import { depositWhen, notesAt, providerPath, slowTransfers, startDeposit } from '../support/deposits.ts';
import { createUser, faultsOf, setFaults, stateOf } from '../support/sandbox.ts';

const OPERATION_GET = providerPath('operationGet');

describe.concurrent('reconcile, its reads lost or refused', () => {
  it('reads of the operation lost (a 503, then a timeout): read again, done, one transfer', async ({
    expect,
  }) => {
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
    async ({ type, status }, { expect }) => {
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
});
