/**
 * A deposit's webhook deliveries through the operator API, on the shared local stack and its test
 * receiver: each try recorded (refused twice, then taken), a resend of the same event (the receiver
 * gets the same webhook-id again, so it can drop it) counted with who; the refusals (a deposit that
 * is not, an event never tried); and the stats the console draws, on the stack's own clock.
 */
import { afterAll, describe, expect, it } from 'vitest';
import {
  depositsUrl,
  depositWhen,
  failDeliveriesOf,
  startDeposit,
  webhookDeliveries,
} from '../support/deposits.ts';
import { ops } from '../support/operator.ts';
import { createUser, eventually, type Reply } from '../support/sandbox.ts';

type Delivery = Reply['body'];
const deliveriesOf = async (operationID: string) =>
  (await ops('/v1/ops/deposits/deliveries', { operationID })).body.deliveries as Delivery[];

let failing: string | undefined;
afterAll(async () => {
  if (failing) await failDeliveriesOf(failing, 0);
});

describe("a deposit's deliveries", () => {
  it('records each try of its event: refused twice by the receiver, then taken', async () => {
    // prepare: the receiver refuses this deposit's first two deliveries
    const user = await createUser('SANDBOX_BENEFICIARY');
    const started = await startDeposit(user, { amount: 12 });
    const operationID: string = started.body.operationID;
    failing = operationID;
    await failDeliveriesOf(operationID, 2);

    // act
    await depositWhen(user, operationID);
    // Its one event: deposit.done (or deposit.failed, on a machine too slow for the provider's timeout).
    const [ended] = await eventually(async () => {
      const found = await deliveriesOf(operationID);
      return found.some((delivery) => delivery.state === 'delivered') ? found : undefined;
    });

    // assess
    const received = await webhookDeliveries(operationID);
    expect(received.refusedForDeposit).toBe(2);
    expect(ended).toMatchObject({
      eventId: received.deliveries[0]?.id,
      type: received.deliveries[0]?.type,
      state: 'delivered',
      attempts: 3,
      resends: 0,
    });
    expect(ended?.tries).toEqual([
      expect.objectContaining({ outcome: 'failed', status: 500, error: 'webhook answered 500' }),
      expect.objectContaining({ outcome: 'failed', status: 500 }),
      expect.objectContaining({ outcome: 'delivered', status: 204 }),
    ]);
    expect(Date.parse(ended?.deliveredAt)).toBe(Date.parse(ended?.tries[2].at));
  });

  it('resends one event as it was: the same webhook-id reaches the receiver again, and the resend is counted with who', async () => {
    // prepare: a deposit whose one event was delivered
    const user = await createUser('SANDBOX_BENEFICIARY');
    const started = await startDeposit(user, { amount: 14 });
    const operationID: string = started.body.operationID;
    await depositWhen(user, operationID);
    const [event] = await eventually(async () => {
      const found = await deliveriesOf(operationID);
      return found[0]?.state === 'delivered' ? found : undefined;
    });
    const eventId = String(event?.eventId);

    // act
    const resent = await ops('/v1/ops/deposits/resend', { operationID, eventId });

    // assess: the same event again (the receiver keeps duplicates; a real one drops them by id)
    expect(resent).toMatchObject({ status: 200, body: { operationID, eventId, resent: true, resends: 1 } });
    const received = await eventually(async () => {
      const { deliveries } = await webhookDeliveries(operationID);
      return deliveries.length >= 2 ? deliveries : undefined;
    });
    expect(received.map((delivery) => delivery.id)).toEqual([eventId, eventId]);
    expect(received[1]?.data).toEqual(received[0]?.data);
    expect(received.every((delivery) => delivery.verified)).toBe(true);
    const after = await eventually(async () => {
      const [found] = await deliveriesOf(operationID);
      return found?.attempts === 2 ? found : undefined;
    });
    expect(after).toMatchObject({ state: 'delivered', resends: 1, lastResend: { by: 'local-operator' } });
  });

  it('refuses a deposit that is not (404 DEPOSIT_NOT_FOUND) and an event never tried (404 DELIVERY_NOT_FOUND)', async () => {
    const user = await createUser('SANDBOX_BENEFICIARY');
    const started = await startDeposit(user, { amount: 16 });
    const operationID: string = started.body.operationID;

    const unknownDeposit = await ops('/v1/ops/deposits/deliveries', { operationID: 'dep_nosuchdeposit' });
    const untried = await ops('/v1/ops/deposits/resend', { operationID, eventId: `${operationID}.v99` });
    const unknownField = await ops('/v1/ops/deposits/resend', { operationID, eventId: 'x', force: true });

    expect(unknownDeposit).toMatchObject({ status: 404, body: { type: 'DEPOSIT_NOT_FOUND' } });
    expect(untried).toMatchObject({ status: 404, body: { type: 'DELIVERY_NOT_FOUND' } });
    expect(unknownField).toMatchObject({ status: 400, body: { type: 'BAD_REQUEST' } });
  });
});

describe('the stats', () => {
  it("count each status, bin the creations and time the done deposits by step, on the stack's clock", async () => {
    const user = await createUser('SANDBOX_BENEFICIARY');
    const from = new Date(Date.now() - 1_000).toISOString();
    const started = await startDeposit(user, { amount: 18 });
    const ended = await depositWhen(user, started.body.operationID);
    // done, as a rule; failed on a machine too slow for the provider's timeout (its bucket then).
    const bucket = ended.type === 'TRANSFER_OUTCOME_UNKNOWN' ? 'outcome_unknown' : String(ended.status);
    const clock = (await (await fetch(`${depositsUrl}/_local/clock`)).json()) as { now: string };

    const stats = await eventually(async () => {
      const { body } = await ops('/v1/ops/deposits/stats', { from });
      return body.counts[bucket].count >= 1 ? body : undefined;
    });
    const listed = await ops('/v1/ops/deposits/list', { status: 'done', limit: 1 });

    expect(stats.overTime.bins).toHaveLength(24);
    expect(stats.overTime.from).toBe(from);
    for (const [name, { count }] of Object.entries(stats.counts as Record<string, { count: number }>)) {
      const binned = (stats.overTime.bins as Record<string, number>[]).reduce(
        (sum, bin) => sum + (bin[name] ?? 0),
        0,
      );
      expect(binned, name).toBe(count);
    }
    expect(stats.timeToDone.deposits).toBeLessThanOrEqual(stats.counts.done.count);
    if (bucket === 'done') {
      expect(stats.timeToDone.steps.map((step: { step: string }) => step.step)).toContain('resolve-bank');
    }
    // The service's time, not the caller's: within a few seconds of the stack's clock.
    for (const now of [stats.now, listed.body.now]) {
      expect(Math.abs(Date.parse(now) - Date.parse(clock.now))).toBeLessThan(10_000);
    }
  });
});
