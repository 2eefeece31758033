/**
 * Reads by the backend's own identity, through the fakes: a deposit (and a
 * payment source) belongs to the backend that created it, which reads, lists and cancels it by its
 * id alone; another backend sees nothing of it; a request that names the connection (its token, and
 * the user secret) sees only that connection's, as before; a deposit from before (no backend) is
 * seen as it always was, by its token and user secret.
 */
import { describe, expect, it } from 'vitest';
import { backendKeyOf, sees } from '#shared/deposits/requests/caller';
import { cancelDeposit, cancelSource } from '#shared/deposits/requests/cancel';
import { listDeposits, listSources, readDeposit, readSource } from '#shared/deposits/requests/read';
import { startDeposit, startSource } from '#shared/deposits/requests/start';
import { credentials, ownerDigests, startRequest, world } from '../support/deposit-world.ts';

const backendA = 'iam:arn:aws:iam::111111111111:role/backend-alpha';
const backendB = 'iam:arn:aws:iam::222222222222:role/backend-beta';

type World = ReturnType<typeof world>;

/** A deposit created by `backend` on the world's connection (or `accessToken`'s). */
async function createdBy(w: World, backend: string | undefined, overrides: Record<string, unknown> = {}) {
  const { view } = await startDeposit(
    startRequest({ backend, idempotencyKey: `key-${Math.random()}`, ...overrides }),
    w.contexts.start(),
  );
  return view.operationID;
}

const refusalOf = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: { type?: string }) => error.type,
  );

describe('a deposit belongs to the backend that created it', () => {
  it('keeps the keyed digest of the backend, never its identity', async () => {
    const w = world();
    const id = await createdBy(w, backendA);

    const stored = w.table.current(id);
    expect(stored.backendKey).toBe(backendKeyOf(backendA, ownerDigests));
    expect(JSON.stringify(stored)).not.toContain('backend-alpha');
    // Apart from the tokens' keys: a token equal to the identity is not its key.
    expect(stored.backendKey).not.toBe(ownerDigests.of(backendA));
  });

  it('is read by that backend with its id alone, no secret', async () => {
    const w = world();
    const id = await createdBy(w, backendA);

    const view = await readDeposit({ depositId: id, backend: backendA }, w.contexts.read());

    expect(view).toMatchObject({ operationID: id, status: 'initialized' });
  });

  it('is nothing to another backend: DEPOSIT_NOT_FOUND, even with its token and user secret', async () => {
    const w = world();
    const id = await createdBy(w, backendA);

    const alone = await refusalOf(readDeposit({ depositId: id, backend: backendB }, w.contexts.read()));
    const withSecrets = await refusalOf(
      readDeposit({ depositId: id, backend: backendB, ...credentials }, w.contexts.read()),
    );

    expect([alone, withSecrets]).toEqual(['DEPOSIT_NOT_FOUND', 'DEPOSIT_NOT_FOUND']);
  });

  it('with a connection named, is seen only by that connection and user', async () => {
    const w = world();
    const id = await createdBy(w, backendA);
    const read = (caller: Record<string, string>) =>
      refusalOf(readDeposit({ depositId: id, backend: backendA, ...caller }, w.contexts.read()));

    expect(await read({ accessToken: credentials.accessToken })).toBeUndefined();
    expect(
      await read({ accessToken: credentials.accessToken, userSecret: credentials.userSecret }),
    ).toBeUndefined();
    expect(await read({ accessToken: 'another-token' })).toBe('DEPOSIT_NOT_FOUND');
    expect(await read({ accessToken: credentials.accessToken, userSecret: 'another-secret' })).toBe(
      'DEPOSIT_NOT_FOUND',
    );
  });

  it('from before (no backend): seen by its token and user secret, as always, and by no backend alone', async () => {
    const w = world();
    const id = await createdBy(w, undefined);
    const { accessToken, userSecret } = credentials;

    const byConnection = await readDeposit(
      { depositId: id, backend: backendA, accessToken, userSecret },
      w.contexts.read(),
    );
    const byBackend = await refusalOf(readDeposit({ depositId: id, backend: backendA }, w.contexts.read()));
    const byTokenOnly = await refusalOf(readDeposit({ depositId: id, accessToken }, w.contexts.read()));

    expect(byConnection.operationID).toBe(id);
    expect(byBackend).toBe('DEPOSIT_NOT_FOUND');
    expect(byTokenOnly).toBe('DEPOSIT_NOT_FOUND');
  });

  it('is cancelled by that backend with its id alone; another backend cancels nothing', async () => {
    const w = world();
    const id = await createdBy(w, backendA);

    const refused = await refusalOf(cancelDeposit({ depositId: id, backend: backendB }, w.contexts.cancel()));
    const cancelled = await cancelDeposit({ depositId: id, backend: backendA }, w.contexts.cancel());

    expect(refused).toBe('DEPOSIT_NOT_FOUND');
    expect(cancelled).toMatchObject({ operationID: id, status: 'failed', type: 'CANCELLED' });
  });

  it('answers a repeated create only to its backend: another backend with the same key and token is refused', async () => {
    const w = world();
    const request = startRequest({ backend: backendA, idempotencyKey: 'shared-key' });
    const first = await startDeposit(request, w.contexts.start());

    const again = await startDeposit(request, w.contexts.start());
    const other = await refusalOf(startDeposit({ ...request, backend: backendB }, w.contexts.start()));

    expect(again).toMatchObject({ started: false, view: { operationID: first.view.operationID } });
    expect(other).toBe('IDEMPOTENCY_KEY_REUSED');
  });
});

describe("a backend's list", () => {
  it('holds its deposits of every connection, newest first, and nothing of another backend', async () => {
    const w = world();
    const first = await createdBy(w, backendA);
    w.clock.advance(1_000);
    const otherConnection = await createdBy(w, backendA, { accessToken: 'token-2', userSecret: 'secret-2' });
    w.clock.advance(1_000);
    await createdBy(w, backendB);

    const mine = await listDeposits({ backend: backendA, limit: 10 }, w.contexts.list());
    const theirs = await listDeposits({ backend: backendB, limit: 10 }, w.contexts.list());

    expect(mine.deposits.map((deposit) => deposit.operationID)).toEqual([otherConnection, first]);
    expect(theirs.deposits.map((deposit) => deposit.operationID)).not.toContain(first);
  });

  it('narrows to a connection when its token is sent, and to a status when asked', async () => {
    const w = world();
    const waiting = await createdBy(w, backendA);
    w.clock.advance(1_000);
    const cancelled = await createdBy(w, backendA);
    await cancelDeposit({ depositId: cancelled, backend: backendA }, w.contexts.cancel());
    w.clock.advance(1_000);
    await createdBy(w, backendA, { accessToken: 'token-2', userSecret: 'secret-2' });

    const connection = await listDeposits(
      { backend: backendA, accessToken: credentials.accessToken, limit: 10 },
      w.contexts.list(),
    );
    const failed = await listDeposits({ backend: backendA, status: 'failed', limit: 10 }, w.contexts.list());

    expect(connection.deposits.map((deposit) => deposit.operationID)).toEqual([cancelled, waiting]);
    expect(failed.deposits.map((deposit) => deposit.operationID)).toEqual([cancelled]);
  });

  it("pages on with a cursor, and another backend's cursor reads its own list only", async () => {
    const w = world();
    const ids: string[] = [];
    for (let index = 0; index < 3; index += 1) {
      ids.unshift(await createdBy(w, backendA));
      w.clock.advance(1_000);
    }

    const page1 = await listDeposits({ backend: backendA, limit: 2 }, w.contexts.list());
    const page2 = await listDeposits(
      { backend: backendA, limit: 2, cursor: page1.cursor },
      w.contexts.list(),
    );
    const stranger = await listDeposits(
      { backend: backendB, limit: 2, cursor: page1.cursor },
      w.contexts.list(),
    );

    expect([...page1.deposits, ...page2.deposits].map((deposit) => deposit.operationID)).toEqual(ids);
    expect(page2.cursor).toBeUndefined();
    expect(stranger.deposits).toEqual([]);
  });
});

describe("a backend's payment sources", () => {
  it('are read, listed and cancelled by it alone', async () => {
    const w = world();
    const { amount: _amount, senderID: _sender, ...request } = startRequest({ backend: backendA });
    const { view } = await startSource(request, w.contexts.start());
    const id = view.sourceID;

    const read = await readSource({ sourceId: id, backend: backendA }, w.contexts.read());
    const listed = await listSources({ backend: backendA, limit: 10 }, w.contexts.list());
    const stranger = await refusalOf(readSource({ sourceId: id, backend: backendB }, w.contexts.read()));
    const cancelled = await cancelSource({ sourceId: id, backend: backendA }, w.contexts.cancel());

    expect(read.sourceID).toBe(id);
    expect(listed.sources.map((source) => source.sourceID)).toEqual([id]);
    expect(stranger).toBe('SOURCE_NOT_FOUND');
    expect(cancelled).toMatchObject({ sourceID: id, status: 'failed' });
  });
});

describe('sees', () => {
  it('compares every key even without a deposit, and sees nothing then', () => {
    expect(sees(undefined, { backend: backendA, ...credentials }, ownerDigests)).toBe(false);
  });
});
