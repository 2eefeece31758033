/**
 * The operator API over real HTTP on the local stack: the token (the local stand-in of IAM), the
 * console's page served without it, the list by status bucket with its step filter, time range and
 * cursor, any deposit read with its history, an operator's cancel (and the caller told), a redrive,
 * the queues' depths, and bad input answered as an envelope.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queues } from '#shared/topology';
import { depositWhen, readDeposit, startDeposit, stepsOf, webhookDeliveries } from '../support/deposits.ts';
import { listAll, operatorToken, operatorUrl, ops } from '../support/operator.ts';
import { createUser, eventually, type Reply, type TestUser } from '../support/sandbox.ts';

describe('the operator token', () => {
  it('is required: none, or a wrong one, is 401 UNAUTHORIZED and nothing runs', async () => {
    const none = await ops('/v1/ops/queues', {}, null);
    const wrong = await ops('/v1/ops/queues', {}, `${operatorToken}x`);
    const unknownRoute = await ops('/v1/ops/nothing', {}, null);

    for (const reply of [none, wrong, unknownRoute]) {
      expect(reply).toMatchObject({
        status: 401,
        body: { success: false, status: 'failed', type: 'UNAUTHORIZED', msg: 'Operator token required' },
      });
    }
  });

  it('opens every route with the right one; an unknown route is then 404 NOT_FOUND', async () => {
    const right = await ops('/v1/ops/queues');
    const unknownRoute = await ops('/v1/ops/nothing');

    expect(right.status).toBe(200);
    expect(unknownRoute).toMatchObject({ status: 404, body: { type: 'NOT_FOUND' } });
  });

  it("serves the console's page and the API's contract without it", async () => {
    const page = await fetch(`${operatorUrl}/`);
    const document = await fetch(`${operatorUrl}/openapi.json`);

    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(document.status).toBe(200);
  });
});

/** Three deposits waiting out a 24-hour cool-down (status initialized, step wait-cooldown), oldest first. */
let waiting: { user: TestUser; id: string; createdAt: string }[] = [];
let from = '';
let to = '';

beforeAll(async () => {
  from = new Date(Date.now() - 1).toISOString();
  for (let index = 0; index < 3; index += 1) {
    const user = await createUser('SANDBOX_COOLDOWN');
    const started = await startDeposit(user, { amount: 15 + index });
    waiting.push({ user, id: started.body.operationID, createdAt: started.body.createdAt });
    // Apart in time, so that a range can take some of them.
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  to = new Date(Date.now() + 1).toISOString();
  await Promise.all(
    waiting.map(({ user, id }) => depositWhen(user, id, (deposit) => deposit.step === 'wait-cooldown')),
  );
}, 60_000);

afterAll(async () => {
  // The waiting deposits end here (their schedules deleted), whatever the tests did to them.
  await Promise.all(
    waiting.map(({ id }) => ops('/v1/ops/deposits/cancel', { operationID: id, reason: 'test over' })),
  );
  waiting = [];
});

const ours = (deposits: Reply['body'][]) =>
  deposits.map((deposit) => deposit.operationID).filter((id) => waiting.some((w) => w.id === id));

describe('the list by status', () => {
  it('pages through a bucket at a step in a time range, newest first, by cursor', async () => {
    const listed = await listAll({ status: 'initialized', step: 'wait-cooldown', from, to }, 1);

    expect(ours(listed)).toEqual(waiting.map((w) => w.id).reverse());
    expect(
      listed.every((deposit) => deposit.status === 'initialized' && deposit.step === 'wait-cooldown'),
    ).toBe(true);
    const created = listed.map((deposit) => Date.parse(deposit.createdAt));
    expect(created).toEqual([...created].sort((a, b) => b - a));
    expect(created.every((at) => at >= Date.parse(from) && at < Date.parse(to))).toBe(true);
  });

  it('leaves out what the range, the step or the bucket does not take', async () => {
    const second = waiting[1]?.createdAt ?? '';
    const before = await listAll({ status: 'initialized', from, to: second });
    const otherStep = await listAll({ status: 'initialized', step: 'transfer', from, to });
    const otherBucket = await listAll({ status: 'done', from, to });

    expect(ours(before)).toEqual([waiting[0]?.id]);
    expect(ours(otherStep)).toEqual([]);
    expect(ours(otherBucket)).toEqual([]);
  });

  it('refuses a cursor that is not one of its own, and a status it does not know (400)', async () => {
    const cursor = await ops('/v1/ops/deposits/list', { status: 'initialized', cursor: 'bm90LW91cnM' });
    const status = await ops('/v1/ops/deposits/list', { status: 'lost' });

    expect(cursor).toMatchObject({ status: 400, body: { type: 'INVALID_CURSOR' } });
    expect(status).toMatchObject({ status: 400, body: { type: 'BAD_REQUEST' } });
  });
});

describe('a deposit, as an operator', () => {
  it('reads any deposit with its history and where it waits', async () => {
    const [first] = waiting;
    const { status, body } = await ops('/v1/ops/deposits/get', { operationID: first?.id });

    expect(status).toBe(200);
    expect(body).toMatchObject({
      operationID: first?.id,
      status: 'initialized',
      step: 'wait-cooldown',
      connection: expect.stringMatching(/^[\w-]{12}$/),
      coolDownUntil: expect.any(String),
      bankName: expect.any(String),
      checkAt: expect.any(String),
    });
    expect(stepsOf(body)).toEqual(['resolve-bank', 'ensure-beneficiary', 'wait-cooldown']);
    expect(await ops('/v1/ops/deposits/get', { operationID: 'dep_none' })).toMatchObject({
      status: 404,
      body: { type: 'DEPOSIT_NOT_FOUND' },
    });
  });

  it('redrives a deposit in flight with its step message; a finished one is 409 DEPOSIT_NOT_IN_FLIGHT', async () => {
    const [, second] = waiting;
    const before = await ops('/v1/ops/deposits/get', { operationID: second?.id });

    const redriven = await ops('/v1/ops/deposits/redrive', { operationID: second?.id });

    expect(redriven).toEqual({
      status: 200,
      body: { operationID: second?.id, step: 'wait-cooldown', version: before.body.version, redriven: true },
    });
    // However often its message comes, the deposit waits on for its cool-down.
    const after = await ops('/v1/ops/deposits/get', { operationID: second?.id });
    expect(after.body).toMatchObject({ status: 'initialized', step: 'wait-cooldown' });
  });

  it("cancels any connection's deposit before its transfer, naming who and why, and its caller hears", async () => {
    const third = waiting[2];
    if (!third) throw new Error('no deposit');

    const cancelled = await ops('/v1/ops/deposits/cancel', {
      operationID: third.id,
      reason: 'Customer called',
    });
    const again = await ops('/v1/ops/deposits/cancel', { operationID: third.id, reason: 'Twice' });
    const redrive = await ops('/v1/ops/deposits/redrive', { operationID: third.id });
    const owner = await readDeposit(third.user, third.id);
    const heard = await eventually(async () => {
      const { deliveries } = await webhookDeliveries(third.id);
      return deliveries.find((delivery) => delivery.type === 'deposit.failed');
    });

    const said = 'Cancelled by local-operator: Customer called';
    expect(cancelled).toMatchObject({
      status: 200,
      body: { status: 'failed', type: 'CANCELLED', msg: said },
    });
    expect(cancelled.body.history.at(-1)).toMatchObject({ note: 'cancelled by an operator' });
    expect(again).toMatchObject({ status: 409, body: { type: 'DEPOSIT_NOT_CANCELLABLE' } });
    expect(redrive).toMatchObject({ status: 409, body: { type: 'DEPOSIT_NOT_IN_FLIGHT' } });
    // The owner hears the type and its fixed message: who and why are the operators' to read.
    const told = 'The deposit was cancelled before its transfer';
    expect(owner.body).toMatchObject({ status: 'failed', type: 'CANCELLED', msg: told });
    expect(heard.data).toMatchObject({ type: 'CANCELLED', msg: told });
    expect(JSON.stringify([owner.body, heard.data])).not.toContain('local-operator');
  });
});

describe('the queues', () => {
  it('answers every queue of the topology with its DLQ, as SQS counts them', async () => {
    const { status, body } = await ops('/v1/ops/queues');

    expect(status).toBe(200);
    expect(body.queues.map((queue: { name: string }) => queue.name)).toEqual(
      Object.values(queues).map((spec) => spec.localName),
    );
    for (const queue of body.queues) {
      expect(queue).toEqual({
        name: queue.name,
        visible: expect.any(Number),
        inFlight: expect.any(Number),
        delayed: expect.any(Number),
        dlq: { name: `${queue.name}-dlq`, visible: expect.any(Number) },
      });
    }
  });
});
