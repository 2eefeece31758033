/**
 * Webhooks of deposit events, over real HTTP against the local stack and the test webhook receiver:
 * one signed delivery per status change, retries while the receiver fails, and the notify DLQ after
 * the last try.
 *
 * The receiver is shared by every test file, so a test refuses only its own deposit's deliveries
 * (`POST /fail {count, depositId}`): refusing the next deliveries of any deposit, the retry test
 * refused other files' too, whose counts of tries then came out too high (the operator's
 * deliveries, refused four times where its own two).
 */
import { DeleteMessageCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, describe, expect, inject, it } from 'vitest';
import {
  armCrash,
  askReceiverToFail,
  depositWhen,
  failDeliveriesOf,
  otpAnswer,
  startDeposit,
  webhookDeliveries,
} from '../support/deposits.ts';
import { createUser, eventually } from '../support/sandbox.ts';

type Delivery = Awaited<ReturnType<typeof webhookDeliveries>>['deliveries'][number];

/** The deposit's deliveries once one of type `last` has arrived; one per webhook id (receivers de-duplicate on it). */
async function deliveriesUntil(depositId: string, last: string, timeoutMs = 20_000) {
  const deliveries = await eventually(async () => {
    const { deliveries } = await webhookDeliveries(depositId);
    return deliveries.some((delivery) => delivery.type === last) ? deliveries : undefined;
  }, timeoutMs);
  const byId = new Map<string, Delivery>();
  for (const delivery of deliveries) if (!byId.has(delivery.id)) byId.set(delivery.id, delivery);
  return { all: deliveries, unique: [...byId.values()] };
}

const sqs = new SQSClient({
  endpoint: inject('sqsEndpoint'),
  region: 'us-east-1',
  credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
});

/** The deposits whose deliveries a test had refused: accepted again after the file, whatever happened. */
const refusing = new Set<string>();
afterAll(async () => {
  for (const depositId of refusing) await failDeliveriesOf(depositId, 0);
  sqs.destroy();
});

describe('webhooks', () => {
  it('tells the caller of a change even when the step dies right after writing it (the outbox)', async () => {
    // prepare
    const user = await createUser('SANDBOX_BENEFICIARY');
    // fault: the transfer step dies after each of its next two writes: the attempt record, then
    // (its message redelivered) the write that fails the deposit. Before the outbox, the event of
    // that last write was sent after it, so it died with the step and nobody ever heard.
    await armCrash(user, 'after-state-write', { step: 'transfer', times: 2 });

    // act
    const started = await startDeposit(user, { amount: 13 });
    const ended = await depositWhen(user, started.body.operationID, undefined, 25_000);
    const { unique } = await deliveriesUntil(started.body.operationID, 'deposit.failed');

    // assess
    expect(ended).toMatchObject({ status: 'failed', type: 'TRANSFER_OUTCOME_UNKNOWN' });
    expect(unique.map((d) => d.type)).toEqual(['deposit.failed']);
    expect(unique[0]?.data).toMatchObject({ status: 'failed', type: 'TRANSFER_OUTCOME_UNKNOWN' });
  });

  it('delivers one deposit.done, with the reference, for a deposit without waits', async () => {
    // prepare
    const user = await createUser('SANDBOX_BENEFICIARY');

    // act
    const started = await startDeposit(user, { amount: 11 });
    const done = await depositWhen(user, started.body.operationID);
    const { all, unique } = await deliveriesUntil(started.body.operationID, 'deposit.done');

    // assess
    expect(done.status).toBe('done');
    expect(unique.map((d) => d.type)).toEqual(['deposit.done']);
    expect(unique[0]?.data).toMatchObject({
      depositId: started.body.operationID,
      status: 'done',
      step: 'completed',
      reference: done.reference,
    });
    expect(all.every((d) => d.verified)).toBe(true);
    // A re-delivery of the same event carries the same id and the same content.
    for (const delivery of all) {
      expect(delivery).toMatchObject({ type: unique.find((u) => u.id === delivery.id)?.type });
    }
  });

  it('delivers deposit.cooling_down with resumesAt, then deposit.done, for a cool-down bank', async () => {
    const user = await createUser('SANDBOX_COOLDOWN_FAST');

    const started = await startDeposit(user, { amount: 30 });
    const done = await depositWhen(user, started.body.operationID);
    const { all, unique } = await deliveriesUntil(started.body.operationID, 'deposit.done');

    expect(done.status).toBe('done');
    expect(unique.map((d) => d.type)).toEqual(['deposit.cooling_down', 'deposit.done']);
    const [cooling, finished] = unique;
    expect(cooling?.data).toMatchObject({
      depositId: started.body.operationID,
      status: 'initialized',
      step: 'wait-cooldown',
      resumesAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
    });
    // The bank's cool-down is 3.6 s; the deposit finished only after it.
    expect(Date.parse(String(cooling?.data.resumesAt))).toBeLessThanOrEqual(Date.parse(done.updatedAt));
    expect(finished?.data).toMatchObject({ status: 'done', reference: done.reference });
    expect(new Set(unique.map((d) => d.id)).size).toBe(2);
    expect(all.every((d) => d.verified)).toBe(true);
  });

  it('delivers deposit.user_input_required with the question at each stop, then deposit.done', async () => {
    const user = await createUser('SANDBOX_OTP');
    const key = `webhook-otp-${user.connectionID}`;
    const started = await startDeposit(user, { amount: 75 }, key);
    const id: string = started.body.operationID;

    const asked = await depositWhen(user, id, (d) => d.status !== 'initialized');
    await startDeposit(user, { amount: 75, userInputs: otpAnswer(asked) }, key);
    const askedAgain = await depositWhen(
      user,
      id,
      (d) => d.step === 'transfer' && d.status !== 'initialized',
    );
    await startDeposit(user, { amount: 75, userInputs: otpAnswer(askedAgain) }, key);
    const done = await depositWhen(user, id);
    const { all, unique } = await deliveriesUntil(id, 'deposit.done');

    expect(done.status).toBe('done');
    expect(unique.map((d) => d.type)).toEqual([
      'deposit.user_input_required',
      'deposit.user_input_required',
      'deposit.done',
    ]);
    expect(unique[0]?.data).toMatchObject({
      depositId: id,
      status: 'user_input_required',
      step: 'ensure-beneficiary',
      userInputs: [{ id: 'otp', answer: '' }],
      inputExpiresAt: asked.inputExpiresAt,
    });
    expect(unique[1]?.data).toMatchObject({
      status: 'user_input_required',
      step: 'transfer',
      userInputs: [{ id: 'otp', answer: '' }],
    });
    expect(unique[2]?.data).toMatchObject({ status: 'done', reference: done.reference });
    // Webhook ids are unique per event: the two questions are two events.
    expect(new Set(unique.map((d) => d.id)).size).toBe(3);
    expect(all.every((d) => d.verified)).toBe(true);
  });

  it('delivers deposit.failed with the failure type for a failed deposit', async () => {
    const user = await createUser('SANDBOX_BENEFICIARY');

    const started = await startDeposit(user, { amount: 5 });
    const ended = await depositWhen(user, started.body.operationID);
    const { all, unique } = await deliveriesUntil(started.body.operationID, 'deposit.failed');

    expect(ended).toMatchObject({ status: 'failed', type: 'AMOUNT_BELOW_MINIMUM' });
    expect(unique.map((d) => d.type)).toEqual(['deposit.failed']);
    expect(unique[0]?.data).toMatchObject({
      depositId: started.body.operationID,
      status: 'failed',
      step: 'completed',
      type: 'AMOUNT_BELOW_MINIMUM',
      msg: ended.msg,
    });
    expect(all.every((d) => d.verified)).toBe(true);
  });

  it("has the shared receiver refuse no deposit's deliveries but the one a test names (400)", async () => {
    const response = await askReceiverToFail({ count: 2 });

    expect(response.status).toBe(400);
  });

  it('retries a delivery the receiver refused until it is accepted', async () => {
    // The deposit's one event comes once its steps are done, a second and more after it starts:
    // time enough to have its first two deliveries refused.
    const user = await createUser('SANDBOX_BENEFICIARY');
    const started = await startDeposit(user, { amount: 12 });
    const id: string = started.body.operationID;
    refusing.add(id);
    await failDeliveriesOf(id, 2);

    const done = await depositWhen(user, id);
    const { unique } = await deliveriesUntil(id, 'deposit.done');
    const { refusedForDeposit } = await webhookDeliveries(id);

    expect(done.status).toBe('done');
    expect(unique.map((d) => d.type)).toEqual(['deposit.done']);
    expect(unique[0]?.verified).toBe(true);
    // Refused twice, then taken.
    expect(refusedForDeposit).toBe(2);
  });

  it('moves an event to the notify DLQ after the last try', async () => {
    // The fast cool-down bank leaves seconds between the start and `deposit.done`: time enough to
    // tell the receiver to refuse every delivery of this deposit.
    const user = await createUser('SANDBOX_COOLDOWN_FAST');
    const dlqUrl = inject('queueUrls').notify?.dlqUrl;

    const started = await startDeposit(user, { amount: 13 });
    const id: string = started.body.operationID;
    refusing.add(id);
    await failDeliveriesOf(id, 50);
    const done = await depositWhen(user, id);
    const dead = await eventually(async () => {
      const { Messages = [] } = await sqs.send(
        new ReceiveMessageCommand({ QueueUrl: dlqUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }),
      );
      // Its deposit.cooling_down was refused too, and may come first.
      const mine = Messages.find((message) => {
        const event = JSON.parse(message.Body ?? '{}');
        return event.depositId === id && event.type === 'deposit.done';
      });
      if (mine)
        await sqs.send(new DeleteMessageCommand({ QueueUrl: dlqUrl, ReceiptHandle: mine.ReceiptHandle }));
      return mine ? (JSON.parse(mine.Body ?? '{}') as Record<string, unknown>) : undefined;
    }, 30_000);
    await failDeliveriesOf(id, 0);
    const { deliveries, refusedForDeposit = 0 } = await webhookDeliveries(id);

    expect(dlqUrl).toEqual(expect.any(String));
    expect(done.status).toBe('done');
    expect(dead).toMatchObject({
      id: expect.stringContaining(id),
      type: 'deposit.done',
      depositId: id,
      data: { status: 'done', reference: done.reference },
    });
    // Every try of deposit.done was refused: the receiver never accepted it.
    expect(deliveries.filter((delivery) => delivery.type === 'deposit.done')).toEqual([]);
    expect(refusedForDeposit).toBeGreaterThanOrEqual(8);
  }, 45_000);
});
