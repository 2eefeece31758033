/**
 * A webhook while the signing secret rotates, across processes: the local stack's notifier signs
 * each delivery with the current secret and the previous one (WEBHOOK_SECRET and
 * WEBHOOK_PREVIOUS_SECRET, which the shared stack is given), and the test receiver, verifying with
 * the Standard Webhooks library as a customer would, takes it with either secret on its own.
 */
import { describe, expect, it } from 'vitest';
import { depositWhen, startDeposit, webhookDeliveries } from '../support/deposits.ts';
import { createUser, eventually } from '../support/sandbox.ts';

describe('a webhook while the signing secret rotates', () => {
  it('carries two signatures, so a receiver holding either secret verifies it', async () => {
    // prepare
    const user = await createUser('SANDBOX_BENEFICIARY');

    // act
    const started = await startDeposit(user, { amount: 12 });
    const done = await depositWhen(user, started.body.operationID);
    const deliveries = await eventually(async () => {
      const { deliveries } = await webhookDeliveries(started.body.operationID);
      return deliveries.some((delivery) => delivery.type === 'deposit.done') ? deliveries : undefined;
    }, 20_000);

    // assess
    expect(done.status).toBe('done');
    expect(deliveries.length).toBeGreaterThan(0);
    for (const delivery of deliveries) {
      expect(delivery).toMatchObject({ signatures: 2, verifiedWith: { current: true, previous: true } });
    }
  });
});
