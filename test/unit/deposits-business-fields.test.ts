/**
 * The caller's business fields, through the fakes: `clientReference` (unique per
 * backend: a second create with it answers the first deposit) and `metadata` (a small bounded
 * string map), accepted at create, shown on every view, carried by every event with the amount, the
 * currency, the sender's account and the times; never a secret.
 */
import { describe, expect, it } from 'vitest';
import { CreateDepositRequest, Deposit } from '#shared/contracts/deposits-schemas';
import { cancelDeposit } from '#shared/deposits/requests/cancel';
import { listDeposits, readDeposit } from '#shared/deposits/requests/read';
import { startDeposit } from '#shared/deposits/requests/start';
import { operatorView } from '#shared/operator/model';
import { credentials, startRequest, world } from '../support/deposit-world.ts';

const backend = 'iam:arn:aws:iam::111111111111:role/backend-alpha';
const fields = { clientReference: 'topup-0001', metadata: { walletUser: 'u-42', channel: 'app' } };

const refusalOf = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: { type?: string; details?: string[] }) => ({ type: error.type, details: error.details }),
  );

describe('clientReference and metadata', () => {
  it('are kept as given and shown on every view: create, get, list, the operator', async () => {
    // prepare
    const w = world();

    // act
    const { view } = await startDeposit(startRequest({ backend, ...fields }), w.contexts.start());
    const read = await readDeposit({ depositId: view.operationID, backend }, w.contexts.read());
    const listed = await listDeposits({ backend, limit: 5 }, w.contexts.list());
    const operator = operatorView(w.table.current(view.operationID), w.clock.now());

    // assess
    for (const shown of [view, read, listed.deposits[0], operator]) {
      expect(shown).toMatchObject({ ...fields, senderID: 'acc-1', amount: 25.5, currency: 'AED' });
    }
    expect(Deposit.safeParse(read).success).toBe(true);
    expect(w.table.current(view.operationID)).toMatchObject(fields);
  });

  it('a second create with the same reference answers the first deposit: nothing else is started', async () => {
    const w = world();
    const first = await startDeposit(startRequest({ backend, ...fields }), w.contexts.start());
    const ctx = w.contexts.start();

    const second = await startDeposit(
      startRequest({ backend, ...fields, idempotencyKey: 'key-2', amount: 99 }),
      ctx,
    );

    expect(second).toEqual({ started: false, view: first.view });
    expect(w.table.items.size).toBe(1);
    expect(ctx.queues.sent).toEqual([]);
  });

  it("is unique per backend: another backend's same reference is its own deposit", async () => {
    const w = world();
    const first = await startDeposit(startRequest({ backend, ...fields }), w.contexts.start());

    const other = await startDeposit(
      startRequest({ backend: 'jwt:svc-beta|web', ...fields, idempotencyKey: 'key-2' }),
      w.contexts.start(),
    );

    expect(other.started).toBe(true);
    expect(other.view.operationID).not.toBe(first.view.operationID);
  });

  it("without a backend, is unique per connection; another user's reference on it is refused, not shown", async () => {
    const w = world();
    await startDeposit(startRequest({ ...fields }), w.contexts.start());

    const sameUser = await startDeposit(
      startRequest({ ...fields, idempotencyKey: 'key-2' }),
      w.contexts.start(),
    );
    const otherUser = await refusalOf(
      startDeposit(
        startRequest({ ...fields, userSecret: 'another-user', idempotencyKey: 'key-3' }),
        w.contexts.start(),
      ),
    );

    expect(sameUser.started).toBe(false);
    expect(otherUser).toMatchObject({ type: 'CLIENT_REFERENCE_REUSED' });
  });

  it('are part of the request an Idempotency-Key names: the same key with other fields is refused', async () => {
    const w = world();
    await startDeposit(startRequest({ backend, ...fields }), w.contexts.start());

    const refused = await refusalOf(
      startDeposit(startRequest({ backend, clientReference: 'topup-0002' }), w.contexts.start()),
    );
    const repeated = await startDeposit(startRequest({ backend, ...fields }), w.contexts.start());

    expect(refused).toMatchObject({ type: 'IDEMPOTENCY_KEY_REUSED' });
    expect(repeated.started).toBe(false);
  });

  it('refuse a secret of the request, naming the field, and store nothing', async () => {
    const w = world();

    const inReference = await refusalOf(
      startDeposit(startRequest({ backend, clientReference: credentials.userSecret }), w.contexts.start()),
    );
    const inMetadata = await refusalOf(
      startDeposit(
        startRequest({ backend, metadata: { note: `token ${credentials.accessToken}` } }),
        w.contexts.start(),
      ),
    );

    expect(inReference).toEqual({
      type: 'BAD_REQUEST',
      details: ['clientReference: holds a secret of this request'],
    });
    expect(inMetadata).toEqual({
      type: 'BAD_REQUEST',
      details: ['metadata.note: holds a secret of this request'],
    });
    expect(w.table.items.size).toBe(0);
  });

  it('ride on every event with the amount, the currency, the sender and the times', async () => {
    const w = world();
    const { view } = await startDeposit(startRequest({ backend, ...fields }), w.contexts.start());

    await cancelDeposit({ depositId: view.operationID, backend }, w.contexts.cancel());

    const event = w.events.published.at(-1);
    expect(event?.type).toBe('deposit.failed');
    expect(event?.data).toMatchObject({
      ...fields,
      amount: 25.5,
      currency: 'AED',
      senderID: 'acc-1',
      createdAt: view.createdAt,
      updatedAt: expect.any(String),
      type: 'CANCELLED',
    });
    const text = JSON.stringify(event);
    for (const secret of Object.values(credentials)) expect(text).not.toContain(secret);
  });
});

describe('their bounds at the door', () => {
  const create = (extra: Record<string, unknown>) =>
    CreateDepositRequest.safeParse({ appSecret: 'a', userSecret: 'u', amount: 1, senderID: 's', ...extra });
  const problems = (extra: Record<string, unknown>) => {
    const parsed = create(extra);
    return parsed.success ? [] : parsed.error.issues.map((issue) => issue.path.join('.'));
  };

  it('take 20 keys of 40 characters with values of 500, and a reference of 128', () => {
    const metadata = Object.fromEntries(
      Array.from({ length: 20 }, (_, index) => [`${index}`.padEnd(40, 'k'), 'v'.repeat(500)]),
    );

    expect(create({ metadata, clientReference: 'r'.repeat(128) }).success).toBe(true);
  });

  it.each([
    [
      '21 keys',
      { metadata: Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`k${i}`, 'v'])) },
      'metadata',
    ],
    ['a key of 41 characters', { metadata: { ['k'.repeat(41)]: 'v' } }, `metadata.${'k'.repeat(41)}`],
    ['a value of 501 characters', { metadata: { note: 'v'.repeat(501) } }, 'metadata.note'],
    ['a value with a line break', { metadata: { note: 'a\nb' } }, 'metadata.note'],
    ['a value that is not a string', { metadata: { count: 3 } }, 'metadata.count'],
    ['a reference with a space', { clientReference: 'top up' }, 'clientReference'],
    ['a reference of 129 characters', { clientReference: 'r'.repeat(129) }, 'clientReference'],
    ['an empty reference', { clientReference: '' }, 'clientReference'],
  ])('refuse %s, naming it', (_name, extra, field) => {
    expect(problems(extra)).toContain(field);
  });
});
