/**
 * A caller's deposits are keyed by keyed digests (HMAC-SHA256 under the owner key) of its access
 * token and user secret, never by a bare hash: the deposit, its idempotency record, the connection's
 * lease and its beneficiary claim. Its owner still finds, lists and cancels it; another token does not.
 */
import { createHash, createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { cancelDeposit, cancelSource } from '#shared/deposits/requests/cancel';
import { listDeposits, readDeposit, readSource } from '#shared/deposits/requests/read';
import { startDeposit, startSource } from '#shared/deposits/requests/start';
import { ensureBeneficiary } from '#shared/deposits/steps/ensure-beneficiary';
import { keyedDigest, keyedDigests, matchesKeyedDigest } from '#shared/secrets';
import {
  answers,
  banks,
  credentials,
  ownerSecretKey,
  startRequest,
  world,
} from '../support/deposit-world.ts';

const hmac = (key: Uint8Array, value: string) => createHmac('sha256', key).update(value).digest('base64url');
const sha256 = (value: string) => createHash('sha256').update(value).digest('base64url');
const anotherKey = Buffer.alloc(32, 'another-owner-key');

const request = startRequest;

describe('keyed digests', () => {
  it('are HMAC-SHA256 under the key, base64url: not the SHA-256 of the value, another under another key', () => {
    const token = 'conn_1.at_secret-token';

    const keyed = keyedDigest(ownerSecretKey, token);

    expect(keyed).toBe(hmac(ownerSecretKey, token));
    expect(keyed).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(keyed).not.toBe(sha256(token));
    expect(keyedDigest(anotherKey, token)).not.toBe(keyed);
    expect(keyedDigests(ownerSecretKey).of(token)).toBe(keyed);
  });

  it('match only the value, under the same key, in constant time (nothing stored matches nothing)', () => {
    const stored = keyedDigest(ownerSecretKey, 'token');

    expect(matchesKeyedDigest(ownerSecretKey, 'token', stored)).toBe(true);
    expect(matchesKeyedDigest(ownerSecretKey, 'token2', stored)).toBe(false);
    expect(matchesKeyedDigest(anotherKey, 'token', stored)).toBe(false);
    expect(matchesKeyedDigest(ownerSecretKey, 'token', sha256('token'))).toBe(false);
    expect(matchesKeyedDigest(ownerSecretKey, 'token', undefined)).toBe(false);
    expect(matchesKeyedDigest(ownerSecretKey, 'token', 'short')).toBe(false);
  });
});

describe("a caller's deposits keyed by the owner key", () => {
  it('keys the deposit, its idempotency record, the lease and the claim by the HMAC of the token', async () => {
    // prepare
    const w = world();
    const ownerKey = hmac(ownerSecretKey, credentials.accessToken);

    // act: started; then at ensure-beneficiary, the bank asks a question on the creation (the
    // deposit keeps the connection's lease and the claim while it waits)
    const started = await startDeposit(request(), w.contexts.start());
    const stored = w.table.current(started.view.operationID);
    w.table.items.set(stored.id, { ...stored, step: 'ensure-beneficiary', bank: banks.beneficiary });
    w.provider
      .answer(
        'listBeneficiaries',
        answers.done({ jobID: 'j', success: true, status: 'done', beneficiaries: [] }),
      )
      .answer('createBeneficiary', answers.question('op-q'));
    await ensureBeneficiary(w.table.current(stored.id), w.contexts.ensureBeneficiary());

    // assess
    expect(stored.ownerKey).toBe(ownerKey);
    expect(stored.readerKey).toBe(hmac(ownerSecretKey, credentials.userSecret));
    expect(w.table.current(stored.id).status).toBe('user_input_required');
    expect([...w.table.keys.keys()]).toEqual([`${ownerKey}#key-1`]);
    expect([...w.table.leaseItems.keys()]).toEqual([ownerKey]);
    expect([...w.table.claimItems.keys()]).toEqual([`${ownerKey}#wallet-aed`]);
    // Nothing is keyed by a bare hash of the token or the secret, which a table reader could confirm.
    const everything = JSON.stringify([
      [...w.table.items.values()],
      [...w.table.keys.keys()],
      [...w.table.leaseItems.keys()],
      [...w.table.claimItems.values()],
    ]);
    for (const secret of [credentials.accessToken, credentials.userSecret]) {
      expect(everything).not.toContain(sha256(secret));
      expect(everything).not.toContain(secret);
    }
  });

  it('keys the same token otherwise under another owner key, and a deposit keyed so is not found under this one', async () => {
    const w = world();
    const elsewhere = { ...w.contexts.start(), ownerDigests: keyedDigests(anotherKey) };

    const started = await startDeposit(request(), elsewhere);
    const stored = w.table.current(started.view.operationID);

    expect(stored.ownerKey).toBe(hmac(anotherKey, credentials.accessToken));
    expect(stored.ownerKey).not.toBe(hmac(ownerSecretKey, credentials.accessToken));
    // The right token, under the other key: no deposit (what rotating the key does to those in flight).
    await expect(
      readDeposit({ depositId: stored.id, ...credentials }, w.contexts.read()),
    ).rejects.toMatchObject({ type: 'DEPOSIT_NOT_FOUND' });
  });

  it('lets its owner read, list and cancel the deposit; another token finds none of it', async () => {
    // prepare
    const w = world();
    const started = await startDeposit(request(), w.contexts.start());
    const depositId = started.view.operationID;
    const stranger = { accessToken: 'token-2', userSecret: credentials.userSecret };
    const list = (caller: { accessToken: string; userSecret: string }) =>
      listDeposits({ ...caller, limit: 10 }, w.contexts.list());

    // act
    const read = await readDeposit({ depositId, ...credentials }, w.contexts.read());
    const strangerRead = readDeposit({ depositId, ...stranger }, w.contexts.read());
    const listed = await list(credentials);
    const strangerList = await list(stranger);
    const strangerCancel = cancelDeposit({ depositId, ...stranger }, w.contexts.cancel());
    await expect(strangerCancel).rejects.toMatchObject({ type: 'DEPOSIT_NOT_FOUND' });
    const cancelled = await cancelDeposit({ depositId, ...credentials }, w.contexts.cancel());

    // assess
    expect(read).toMatchObject({ operationID: depositId, status: 'initialized' });
    await expect(strangerRead).rejects.toMatchObject({ type: 'DEPOSIT_NOT_FOUND' });
    expect(listed.deposits.map((deposit) => deposit.operationID)).toEqual([depositId]);
    expect(strangerList).toEqual({ deposits: [] });
    expect(cancelled).toMatchObject({ status: 'failed', type: 'CANCELLED' });
  });

  it("lets a payment source's owner read and cancel it; another token finds none of it", async () => {
    const w = world();
    const started = await startSource({ ...credentials, idempotencyKey: 'src-1' }, w.contexts.start());
    const sourceId = started.view.sourceID;
    const stranger = { accessToken: 'token-2', userSecret: credentials.userSecret };

    await expect(readSource({ sourceId, ...stranger }, w.contexts.read())).rejects.toMatchObject({
      type: 'SOURCE_NOT_FOUND',
    });
    await expect(cancelSource({ sourceId, ...stranger }, w.contexts.cancel())).rejects.toMatchObject({
      type: 'SOURCE_NOT_FOUND',
    });
    expect((await readSource({ sourceId, ...credentials }, w.contexts.read())).sourceID).toBe(sourceId);
    expect((await cancelSource({ sourceId, ...credentials }, w.contexts.cancel())).status).toBe('failed');
  });
});
