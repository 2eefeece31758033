/**
 * Four eyes on money that moved, over real HTTP on the local stack, whose tests' thresholds are
 * AED 1,000.00 and KWD 100.000 (`RESOLVE_APPROVAL_ABOVE` in `testEnv`): the transfer of an AED 1,500
 * deposit times out, its outcome is unknown; the operator (`local-operator`) resolves it done, which
 * is only proposed (202, nothing told to its caller); the same operator cannot approve it (403), a
 * second operator (`local-operator-2`, the stack's second token) who says otherwise is refused (409),
 * and the same outcome and reference from the second operator applies it: done, with the approval on
 * the resolution, and the caller hears it once. `failed` needs no second operator, whatever the amount.
 */
import { describe, expect, it } from 'vitest';
import { depositWhen, readDeposit, startDeposit, webhookDeliveries } from '../support/deposits.ts';
import { listAll, ops, secondOperatorToken } from '../support/operator.ts';
import { createUser, eventually, setFaults } from '../support/sandbox.ts';

const TRANSFER = '/v1/payment/transfer/create';
const RESOLVE = '/v1/ops/deposits/resolve';

/** An AED 1,500 deposit whose transfer call timed out (PROVIDER_TIMEOUT_MS is 2000): its outcome is unknown. */
async function unknownOutcome(phase: 'before' | 'after') {
  const user = await createUser('SANDBOX_BENEFICIARY');
  await setFaults(user, [{ path: TRANSFER, times: 1, outcome: 'timeout', timeoutMs: 2_500, phase }]);
  const from = new Date(Date.now() - 1).toISOString();
  const started = await startDeposit(user, { amount: 1_500 });
  const id: string = started.body.operationID;
  const failed = await depositWhen(user, id, undefined, 25_000);
  expect(failed).toMatchObject({ status: 'failed', type: 'TRANSFER_OUTCOME_UNKNOWN', amount: 1_500 });
  return { user, id, from };
}

async function inBucket(bucket: string, id: string, from: string) {
  const listed = await listAll({ status: bucket, from }, 50);
  return listed.some((deposit) => deposit.operationID === id);
}

describe.concurrent('a resolution to done above the approval threshold', () => {
  it('is proposed by one operator (202), refused to the same one and to another who disagrees, and applied by a second', async ({
    expect,
  }) => {
    const { user, id, from } = await unknownOutcome('after');
    const [transfer] = (await user.state()).transfers as { reference: string }[];
    const reference = transfer?.reference ?? '';
    const proposal = { operationID: id, outcome: 'done', reference, reason: 'On the statement' };

    const proposed = await ops(RESOLVE, proposal);
    const own = await ops(RESOLVE, { ...proposal, reason: 'I am sure' });
    const otherReference = await ops(RESOLVE, { ...proposal, reference: 'TRF-NOT-IT' }, secondOperatorToken);
    const otherOutcome = await ops(
      RESOLVE,
      { operationID: id, outcome: 'failed', reason: 'Not there' },
      secondOperatorToken,
    );
    const callerMeanwhile = (await readDeposit(user, id)).body;
    const waiting = await inBucket('outcome_unknown', id, from);
    const approved = await ops(RESOLVE, { ...proposal, reason: 'Checked it too' }, secondOperatorToken);
    const event = await eventually(async () => {
      const { deliveries } = await webhookDeliveries(id);
      return deliveries.find((delivery) => delivery.type === 'deposit.done');
    }, 20_000);

    expect(proposed).toMatchObject({
      status: 202,
      body: {
        status: 'failed',
        type: 'TRANSFER_OUTCOME_UNKNOWN',
        pendingResolution: { outcome: 'done', reference, by: 'local-operator', reason: 'On the statement' },
      },
    });
    const pending = proposed.body.pendingResolution as { at: string; expiresAt: string };
    expect(Date.parse(pending.expiresAt) - Date.parse(pending.at)).toBe(24 * 3_600_000);
    expect(own).toMatchObject({
      status: 403,
      body: { success: false, status: 'failed', type: 'RESOLUTION_NEEDS_ANOTHER_OPERATOR' },
    });
    for (const refused of [otherReference, otherOutcome]) {
      expect(refused).toMatchObject({
        status: 409,
        body: { success: false, status: 'failed', type: 'RESOLUTION_DISAGREES' },
      });
      expect(refused.body.msg).toContain(`done with reference ${reference} by local-operator`);
    }
    // The caller hears nothing of a proposal: its deposit still waits on an operator.
    expect(callerMeanwhile).toMatchObject({ status: 'failed', type: 'TRANSFER_OUTCOME_UNKNOWN' });
    expect(waiting).toBe(true);
    expect(approved).toMatchObject({
      status: 200,
      body: {
        status: 'done',
        reference,
        resolution: {
          outcome: 'done',
          by: 'local-operator',
          reason: 'On the statement',
          approval: { by: 'local-operator-2', reason: 'Checked it too' },
        },
      },
    });
    expect(approved.body.pendingResolution).toBeUndefined();
    // One event, of the approved version: the proposal's version told the caller nothing.
    expect(event.id).toBe(`${id}.v${approved.body.version}`);
    expect(event.data).toMatchObject({ status: 'done', reference, resolved: true });
    expect(JSON.stringify(event.data)).not.toMatch(/local-operator|statement|Checked/);
    const { deliveries } = await webhookDeliveries(id);
    expect(deliveries.filter((delivery) => delivery.id === `${id}.v${proposed.body.version}`)).toEqual([]);
    expect((await readDeposit(user, id)).body).toMatchObject({ status: 'done', reference });
    expect(await inBucket('done', id, from)).toBe(true);
  });

  it('failed needs no second operator, whatever the amount: applied at once (200)', async ({ expect }) => {
    const { id } = await unknownOutcome('before');

    const resolved = await ops(RESOLVE, { operationID: id, outcome: 'failed', reason: 'No such transfer' });

    expect(resolved).toMatchObject({
      status: 200,
      body: {
        status: 'failed',
        type: 'TRANSFER_NOT_EXECUTED',
        resolution: { outcome: 'failed', by: 'local-operator' },
      },
    });
    expect(resolved.body.resolution.approval).toBeUndefined();
  });
});
