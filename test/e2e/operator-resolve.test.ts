/**
 * An operator settles a transfer whose outcome is unknown, over real HTTP on the local stack: the
 * sandbox times out the transfer call (after moving the money, or before), the deposit fails
 * TRANSFER_OUTCOME_UNKNOWN and shows in the `outcome_unknown` bucket; the operator resolves it done
 * (with the bank's reference) or failed (TRANSFER_NOT_EXECUTED), the caller's webhook hears who and
 * why, and the deposit leaves the bucket. A second resolve, or a resolve of anything else, is 409.
 */
import { describe, expect, it } from 'vitest';
import { depositWhen, readDeposit, startDeposit, webhookDeliveries } from '../support/deposits.ts';
import { listAll, ops } from '../support/operator.ts';
import { createUser, eventually, setFaults, type TestUser } from '../support/sandbox.ts';

const TRANSFER = '/v1/payment/transfer/create';

/** A deposit whose transfer call timed out (PROVIDER_TIMEOUT_MS is 2000): failed TRANSFER_OUTCOME_UNKNOWN. */
async function unknownOutcome(phase: 'before' | 'after') {
  const user = await createUser('SANDBOX_BENEFICIARY');
  await setFaults(user, [{ path: TRANSFER, times: 1, outcome: 'timeout', timeoutMs: 2_500, phase }]);
  const from = new Date(Date.now() - 1).toISOString();
  const started = await startDeposit(user, { amount: 21 });
  const id: string = started.body.operationID;
  const failed = await depositWhen(user, id, undefined, 25_000);
  expect(failed).toMatchObject({ status: 'failed', type: 'TRANSFER_OUTCOME_UNKNOWN' });
  return { user, id, from };
}

/** The caller's delivery of this deposit's event of this type saying `data`, once it has come. */
function delivered(id: string, type: string, data: Record<string, unknown>) {
  return eventually(async () => {
    const { deliveries } = await webhookDeliveries(id);
    return deliveries.find(
      (delivery) =>
        delivery.type === type && Object.entries(data).every(([key, value]) => delivery.data[key] === value),
    );
  }, 20_000);
}

async function bucketHas(bucket: string, id: string, from: string) {
  const listed = await listAll({ status: bucket, from }, 50);
  return listed.some((deposit) => deposit.operationID === id);
}

describe.concurrent('resolving an unknown transfer outcome', () => {
  it('done: the money moved; the deposit is done with the reference, and the caller hears it was resolved (never who, nor why)', async ({
    expect,
  }) => {
    const { user, id, from } = await unknownOutcome('after');
    const [transfer] = (await user.state()).transfers as { reference: string }[];
    expect(await bucketHas('outcome_unknown', id, from)).toBe(true);
    expect(await bucketHas('failed', id, from)).toBe(false);

    const resolved = await ops('/v1/ops/deposits/resolve', {
      operationID: id,
      outcome: 'done',
      reference: transfer?.reference,
      reason: 'The bank statement shows it',
    });
    const event = await delivered(id, 'deposit.done', { resolved: true });
    const again = await ops('/v1/ops/deposits/resolve', {
      operationID: id,
      outcome: 'failed',
      reason: 'Twice',
    });

    expect(resolved).toMatchObject({
      status: 200,
      body: {
        status: 'done',
        success: true,
        reference: transfer?.reference,
        resolution: { outcome: 'done', by: 'local-operator', reason: 'The bank statement shows it' },
      },
    });
    expect(resolved.body.history.at(-1)).toMatchObject({
      status: 'done',
      note: 'resolved done by an operator',
    });
    expect(event.verified).toBe(true);
    expect(event.data).toMatchObject({
      status: 'done',
      reference: transfer?.reference,
      resolved: true,
    });
    // The caller hears the outcome, never who settled it nor why.
    expect(JSON.stringify(event.data)).not.toMatch(/local-operator|bank statement/);
    expect(again).toMatchObject({ status: 409, body: { type: 'DEPOSIT_NOT_RESOLVABLE' } });
    expect((await readDeposit(user, id)).body).toMatchObject({
      status: 'done',
      reference: transfer?.reference,
    });
    expect(await bucketHas('outcome_unknown', id, from)).toBe(false);
    expect(await bucketHas('done', id, from)).toBe(true);
  });

  it('failed: nothing moved; the deposit is failed TRANSFER_NOT_EXECUTED, and the caller hears it was resolved (never who, nor why)', async ({
    expect,
  }) => {
    const { user, id, from } = await unknownOutcome('before');
    expect((await user.state()).transfers).toEqual([]);

    const resolved = await ops('/v1/ops/deposits/resolve', {
      operationID: id,
      outcome: 'failed',
      reason: 'No such transfer at the bank',
    });
    const event = await delivered(id, 'deposit.failed', { type: 'TRANSFER_NOT_EXECUTED' });
    const again = await ops('/v1/ops/deposits/resolve', {
      operationID: id,
      outcome: 'done',
      reference: 'R-1',
      reason: 'Twice',
    });

    expect(resolved).toMatchObject({
      status: 200,
      body: {
        status: 'failed',
        type: 'TRANSFER_NOT_EXECUTED',
        msg: 'No such transfer at the bank',
        resolution: { outcome: 'failed', by: 'local-operator' },
      },
    });
    expect(event.verified).toBe(true);
    expect(event.data).toMatchObject({
      type: 'TRANSFER_NOT_EXECUTED',
      msg: 'The bank did not carry the transfer out (settled by an operator)',
      resolved: true,
    });
    expect(JSON.stringify(event.data)).not.toMatch(/local-operator|No such transfer/);
    expect(again).toMatchObject({ status: 409, body: { type: 'DEPOSIT_NOT_RESOLVABLE' } });
    expect(await bucketHas('outcome_unknown', id, from)).toBe(false);
    expect(await bucketHas('failed', id, from)).toBe(true);
  });

  it('refuses a deposit whose outcome is known (409), an unknown id (404), and done without a reference (400)', async ({
    expect,
  }) => {
    const user: TestUser = await createUser('SANDBOX_BENEFICIARY');
    const started = await startDeposit(user, { amount: 12 });
    await depositWhen(user, started.body.operationID);

    const known = await ops('/v1/ops/deposits/resolve', {
      operationID: started.body.operationID,
      outcome: 'failed',
      reason: 'Not so',
    });
    const missing = await ops('/v1/ops/deposits/resolve', {
      operationID: 'dep_none',
      outcome: 'failed',
      reason: 'r',
    });
    const noReference = await ops('/v1/ops/deposits/resolve', {
      operationID: started.body.operationID,
      outcome: 'done',
      reason: 'r',
    });
    const longReason = await ops('/v1/ops/deposits/resolve', {
      operationID: started.body.operationID,
      outcome: 'failed',
      reason: 'x'.repeat(501),
    });
    const noReason = await ops('/v1/ops/deposits/resolve', {
      operationID: started.body.operationID,
      outcome: 'failed',
    });
    const blankReason = await ops('/v1/ops/deposits/resolve', {
      operationID: started.body.operationID,
      outcome: 'failed',
      reason: '   ',
    });

    expect(known).toMatchObject({ status: 409, body: { type: 'DEPOSIT_NOT_RESOLVABLE' } });
    expect(missing).toMatchObject({ status: 404, body: { type: 'DEPOSIT_NOT_FOUND' } });
    expect(noReference).toMatchObject({
      status: 400,
      body: { type: 'BAD_REQUEST', details: [expect.stringContaining('reference')] },
    });
    expect(longReason).toMatchObject({ status: 400, body: { type: 'BAD_REQUEST' } });
    for (const refused of [noReason, blankReason]) {
      expect(refused).toMatchObject({
        status: 400,
        body: { type: 'BAD_REQUEST', details: [expect.stringContaining('reason')] },
      });
    }
  });
});
