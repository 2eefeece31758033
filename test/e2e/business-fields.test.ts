/**
 * The caller's business fields, over real HTTP against the local stack:
 * `clientReference` is unique per backend, so creates with the same one (even at once, under other
 * keys) make one deposit and answer it; `metadata` is kept; both are on every view and, with the
 * amount, the currency, the sender and the times, in every webhook event, verified.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { depositWhen, readDeposit, startDeposit, webhookDeliveries } from '../support/deposits.ts';
import { operatorToken, operatorUrl } from '../support/operator.ts';
import { createUser, eventually, failed } from '../support/sandbox.ts';

describe('clientReference', () => {
  it('makes one deposit of creates sent at once under other keys, and answers it to each', async () => {
    // prepare
    const user = await createUser('SANDBOX_BENEFICIARY');
    const clientReference = `topup-${randomUUID()}`;

    // act
    const replies = await Promise.all(
      Array.from({ length: 5 }, () => startDeposit(user, { amount: 21, clientReference }, randomUUID())),
    );
    const done = await depositWhen(user, String(replies[0]?.body.operationID));
    const later = await startDeposit(user, { amount: 22, clientReference }, randomUUID());

    // assess
    expect(replies.map((reply) => reply.status).sort()).toEqual([200, 200, 200, 200, 202]);
    expect(new Set(replies.map((reply) => reply.body.operationID)).size).toBe(1);
    expect(later.status).toBe(200);
    expect(later.body).toMatchObject({ operationID: done.operationID, amount: 21, clientReference });
    expect((await user.state()).transfers).toHaveLength(1);
  });

  it('is refused when not a reference (a space): 400 naming it, nothing started', async () => {
    const user = await createUser('SANDBOX_BENEFICIARY');

    const reply = await startDeposit(user, { amount: 10, clientReference: 'top up' });

    expect(reply.status).toBe(400);
    expect(reply.body).toEqual(failed('BAD_REQUEST'));
    expect(reply.body.details).toEqual([expect.stringMatching(/^clientReference: /)]);
  });
});

describe('the business fields on every view and event', () => {
  it('shows them on get and the operator view, and sends them in each webhook event with the money, the sender and the times', async () => {
    // prepare
    const user = await createUser('SANDBOX_BENEFICIARY');
    const fields = {
      clientReference: `order-${randomUUID()}`,
      metadata: { walletUser: 'u-42', channel: 'ios' },
    };

    // act
    const started = await startDeposit(user, { amount: 31.25, ...fields });
    const id = started.body.operationID;
    const done = await depositWhen(user, id);
    const read = await readDeposit(user, id);
    const operator = await fetch(`${operatorUrl}/v1/ops/deposits/get`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${operatorToken}` },
      body: JSON.stringify({ operationID: id }),
    });
    const heard = await eventually(async () => {
      const { deliveries } = await webhookDeliveries(id);
      return deliveries.find((delivery) => delivery.type === 'deposit.done');
    });

    // assess
    const business = { ...fields, amount: 31.25, currency: 'AED', senderID: user.accountId };
    expect(done.status).toBe('done');
    expect(started.body).toMatchObject(business);
    expect(read.body).toMatchObject(business);
    expect(await operator.json()).toMatchObject(business);
    expect(heard).toMatchObject({
      verified: true,
      data: { ...business, status: 'done', createdAt: started.body.createdAt, updatedAt: expect.any(String) },
    });
    const text = JSON.stringify(heard);
    expect(text).not.toContain(user.accessToken);
    expect(text).not.toContain(user.userSecret);
  });

  it('refuses a field that holds a secret of the request, naming it', async () => {
    const user = await createUser('SANDBOX_BENEFICIARY');

    const reply = await startDeposit(user, { amount: 10, metadata: { note: user.userSecret } });

    expect(reply.status).toBe(400);
    expect(reply.body.details).toEqual(['metadata.note: holds a secret of this request']);
  });
});
