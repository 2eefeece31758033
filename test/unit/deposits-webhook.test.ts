/**
 * The typed client's webhook verifier: the events the steps write, signed as the
 * notifier signs them (`WebhookSender`), verify with the endpoint's secret and come out typed, a
 * union on `type` (`#shared/contracts/deposit-events`): a deposit's with its amount, currency,
 * sender, `clientReference` and `metadata`, a source's with its id. A wrong secret, a body changed
 * after signing or a signed body that is no event is refused, saying which.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { WebhookSender } from '#shared/adapters/webhook-sender';
import type { DepositEvent } from '#shared/deposits/model/events';
import { transfer } from '#shared/deposits/steps/transfer';
import { DepositsWebhook, WebhookNotVerified } from '#shared/deposits-api/webhooks';
import { answers, banks, world } from '../support/deposit-world.ts';

const secret = () => `whsec_${randomBytes(24).toString('base64')}`;
const business = { clientReference: 'topup-7741', metadata: { walletUser: 'u-42' } };

/** Each event a transfer step writes, each in a world of its own: a question, a cool-down, done, failed; and a source's ready. */
async function eventsOfTheSteps(): Promise<DepositEvent[]> {
  const atTransfer = {
    step: 'transfer',
    version: 2,
    bank: banks.beneficiary,
    beneficiaryId: 'ben-1',
  } as const;
  const outcomes = [
    answers.question(),
    answers.refusal('BENEFICIARY_COOL_DOWN_PERIOD', 'until 2026-11-24T12:00:00.000Z'),
    answers.done({ reference: 'TRF1' }),
    answers.refusal('INSUFFICIENT_BALANCE'),
  ];
  const events: DepositEvent[] = [];
  for (const outcome of [...outcomes, 'source'] as const) {
    const w = world();
    const record =
      outcome === 'source' ? await w.source(atTransfer) : await w.deposit({ ...atTransfer, ...business });
    if (outcome !== 'source') w.provider.answer('createTransfer', outcome);
    await transfer(record, w.contexts.transfer());
    events.push(...w.events.published);
  }
  return events;
}

/** The delivery the notifier sends for `event`: its body and headers, as a receiver gets them. */
async function delivered(event: DepositEvent, secrets: string[]) {
  let sent = { body: '', headers: {} as Record<string, string> };
  const fetch = async (_url: string | URL | Request, init?: RequestInit) => {
    sent = { body: String(init?.body), headers: init?.headers as Record<string, string> };
    return new Response(null, { status: 204 });
  };
  await new WebhookSender('https://wallet.test/hooks', secrets, 1_000, { fetch }).deliver(event);
  return sent;
}

function refusal(verify: () => unknown) {
  try {
    verify();
  } catch (error) {
    if (error instanceof WebhookNotVerified) return error.reason;
    throw error;
  }
  return 'verified';
}

describe('the client webhook verifier', () => {
  it('verifies each event the steps write and answers it typed, business fields and all', async () => {
    // prepare
    const key = secret();
    const verifier = new DepositsWebhook(key);
    const events = await eventsOfTheSteps();

    // act
    const verified = [];
    for (const event of events) {
      const { body, headers } = await delivered(event, [key]);
      verified.push(verifier.verify(body, headers));
    }

    // assess
    expect(verified.map((event) => event.type)).toEqual([
      'deposit.user_input_required',
      'deposit.cooling_down',
      'deposit.done',
      'deposit.failed',
      'source.ready',
    ]);
    const [asking, coolingDown, done, failed, ready] = verified;
    const money = { amount: 25.5, currency: 'AED', senderID: 'acc-1', ...business };
    expect(asking?.data).toMatchObject({
      ...money,
      status: 'user_input_required',
      userInputs: [{ id: 'otp' }],
    });
    expect(coolingDown?.data).toMatchObject({ ...money, resumesAt: '2026-11-24T12:00:00.000Z' });
    expect(done?.data).toMatchObject({ ...money, status: 'done', reference: 'TRF1' });
    expect(failed?.data).toMatchObject({ ...money, status: 'failed', type: 'INSUFFICIENT_BALANCE' });
    expect(ready?.data).toMatchObject({ sourceId: expect.any(String), status: 'ready' });
    expect(ready?.data).not.toHaveProperty('amount');
    // The type narrows `data`: only a done deposit's event has its `reference`.
    if (done?.type !== 'deposit.done') throw new Error('not done');
    const reference: string = done.data.reference;
    expect(reference).toBe('TRF1');
  });

  it('takes the headers as Node or Fetch gives them, and either secret while it rotates', async () => {
    const [current, previous, other] = [secret(), secret(), secret()];
    const [event] = (await eventsOfTheSteps()).filter((each) => each.type === 'deposit.done');
    if (!event) throw new Error('no deposit.done');
    const signedWithBoth = await delivered(event, [current, previous]);
    const signedWithOld = await delivered(event, [previous]);
    const upperCase = Object.fromEntries(
      Object.entries(signedWithOld.headers).map(([name, value]) => [name.toUpperCase(), value]),
    );

    expect(
      new DepositsWebhook(previous).verify(signedWithBoth.body, new Headers(signedWithBoth.headers)).type,
    ).toBe('deposit.done');
    expect(
      new DepositsWebhook([current, previous]).verify(new TextEncoder().encode(signedWithOld.body), upperCase)
        .type,
    ).toBe('deposit.done');
    expect(
      refusal(() => new DepositsWebhook(other).verify(signedWithBoth.body, signedWithBoth.headers)),
    ).toBe('signature');
  });

  it('refuses a body changed after signing, missing headers, and a signed body that is no event', async () => {
    const key = secret();
    const verifier = new DepositsWebhook(key);
    const [event] = await eventsOfTheSteps();
    if (!event) throw new Error('no event');
    const { body, headers } = await delivered(event, [key]);
    const notAnEvent = await delivered({ ...event, type: 'deposit.lost' as DepositEvent['type'] }, [key]);

    expect(refusal(() => verifier.verify(body.replace('"amount":25.5', '"amount":2550'), headers))).toBe(
      'signature',
    );
    expect(refusal(() => verifier.verify(body, {}))).toBe('signature');
    expect(refusal(() => verifier.verify(notAnEvent.body, notAnEvent.headers))).toBe('schema');
  });
});
