/**
 * The time a bank takes, whichever way it is asked, over the in-memory store and a manual clock: a
 * request sent with `sync: true` is held for the user's async delay, then answers its outcome (past
 * what a request can wait, `initialized`, as `sync: false` would); a question holds the connection
 * exactly its lifetime, and no longer.
 */
import { describe, expect, it } from 'vitest';
import { faultWaitBudgetMs } from '#shared/provider/interface/limits';
import { createBeneficiary, listBeneficiaries } from '#shared/sandbox/operations/beneficiaries';
import { getCardBalance } from '#shared/sandbox/operations/card-balance';
import { getMetadata } from '#shared/sandbox/operations/metadata';
import { getOperation } from '#shared/sandbox/operations/operation-get';
import { createTransfer } from '#shared/sandbox/operations/transfers';
import { givenSandbox, type SandboxTestUser, walletBeneficiary } from '../support/given-sandbox.ts';

const failed = (type: string) =>
  expect.objectContaining({ success: false, status: 'failed', type, msg: expect.any(String) });

/** The wallet beneficiary created; the id the list gives for it. */
async function givenBeneficiary(user: SandboxTestUser): Promise<string> {
  await user.call(createBeneficiary, { sync: true, ...walletBeneficiary() });
  const listed = await user.call(listBeneficiaries, { sync: true });
  const [beneficiary] = listed.body.beneficiaries as { id: string }[];
  return String(beneficiary?.id);
}

describe('sync: true at a bank that takes time', () => {
  it('holds the request for the async delay, then answers done and frees the connection', async () => {
    // prepare
    const { store, clock, createUser } = givenSandbox();
    const user = await createUser('SANDBOX_BENEFICIARY', { asyncDelaySeconds: 2 });
    const receiverID = await givenBeneficiary(user);
    const startedAt = clock.now();

    // act
    const answered = await user.call(createTransfer, {
      sync: true,
      amount: 30,
      senderID: user.accountId,
      receiverID,
    });
    const tookMs = clock.now() - startedAt;
    const connection = await store.getConnection(user.connectionId);
    const { transfers } = await store.getUserAssets(user.connectionId);

    // assess
    expect(tookMs).toBe(2_000);
    expect(answered).toEqual({
      status: 200,
      body: {
        operationID: expect.any(String),
        success: true,
        status: 'done',
        reference: transfers[0]?.reference,
      },
    });
    expect(connection?.lockOperationId).toBeUndefined();
  });

  it('a bank whose transfers take longer than its reads (transferDelaySeconds): reads held their time, transfers theirs', async () => {
    // prepare
    const { clock, createUser } = givenSandbox();
    const user = await createUser('SANDBOX_BENEFICIARY', { asyncDelaySeconds: 0, transferDelaySeconds: 4 });
    const receiverID = await givenBeneficiary(user);

    // act
    const readStartedAt = clock.now();
    const metadata = await user.call(getMetadata, { sync: true });
    const readMs = clock.now() - readStartedAt;
    const transferStartedAt = clock.now();
    const transfer = await user.call(createTransfer, {
      sync: true,
      amount: 30,
      senderID: user.accountId,
      receiverID,
    });
    const transferMs = clock.now() - transferStartedAt;
    const accepted = await user.call(createTransfer, {
      sync: false,
      amount: 31,
      senderID: user.accountId,
      receiverID,
    });
    clock.advance(4_000 - 1);
    const early = await user.call(getOperation, { operationID: String(accepted.body.operationID) });

    // assess
    expect(metadata.body).toMatchObject({ status: 'done' });
    expect(readMs).toBe(0);
    expect(transfer.body).toMatchObject({ status: 'done' });
    expect(transferMs).toBe(4_000);
    expect(accepted).toMatchObject({ status: 202, body: { status: 'initialized' } });
    expect(early.body).toMatchObject({ status: 'initialized' });
  });

  it('takes as long as sync: false takes to complete, refusals too', async () => {
    // prepare
    const { clock, createUser } = givenSandbox();
    const user = await createUser('SANDBOX_BENEFICIARY', { asyncDelaySeconds: 3, balance: 10 });
    const receiverID = await givenBeneficiary(user);
    const fields = { amount: 50, senderID: user.accountId, receiverID };

    // act
    const syncStartedAt = clock.now();
    const synchronous = await user.call(createTransfer, { ...fields, sync: true });
    const syncMs = clock.now() - syncStartedAt;
    const accepted = await user.call(createTransfer, { ...fields, sync: false });
    const operationID = String(accepted.body.operationID);
    clock.advance(3_000 - 1);
    const early = await user.call(getOperation, { operationID });
    clock.advance(1);
    const completed = await user.call(getOperation, { operationID });

    // assess
    expect(syncMs).toBe(3_000);
    expect(synchronous).toEqual({ status: 422, body: failed('INSUFFICIENT_BALANCE') });
    expect(accepted.status).toBe(202);
    expect(early.body).toMatchObject({ status: 'initialized' });
    expect(completed.body).toEqual(failed('INSUFFICIENT_BALANCE'));
  });

  it('past what a request can wait: answers initialized when the wait ends, done once read after', async () => {
    // prepare
    const { store, clock, createUser } = givenSandbox();
    const user = await createUser('SANDBOX_BENEFICIARY', { asyncDelaySeconds: 60 });
    const startedAt = clock.now();

    // act
    const answered = await user.call(getMetadata, { sync: true });
    const tookMs = clock.now() - startedAt;
    const jobID = String(answered.body.jobID);
    const meanwhile = await user.call(getCardBalance, { cardID: 'card_none', sync: true });
    clock.set(startedAt + 60_000);
    const completed = await user.call(getOperation, { jobID });
    const connection = await store.getConnection(user.connectionId);

    // assess
    expect(tookMs).toBe(faultWaitBudgetMs);
    expect(answered).toEqual({ status: 202, body: { jobID, success: true, status: 'initialized' } });
    expect(meanwhile).toEqual({ status: 409, body: failed('OPERATION_IN_PROGRESS') });
    expect(completed.body).toMatchObject({ jobID, success: true, status: 'done' });
    expect(connection?.lockUntil).toBe(startedAt + 60_000);
  });

  it('past the longest hold it is set to (SANDBOX_HOLD_MS): initialized when the hold ends', async () => {
    // prepare: a provider that holds a call 700 ms at most, at a bank that takes 3 s
    const { clock, createUser } = givenSandbox({ settings: { holdMs: 700 } });
    const user = await createUser('SANDBOX_BENEFICIARY', { asyncDelaySeconds: 3 });
    const startedAt = clock.now();

    // act
    const answered = await user.call(getMetadata, { sync: true });
    const tookMs = clock.now() - startedAt;
    clock.set(startedAt + 3_000);
    const completed = await user.call(getOperation, { jobID: String(answered.body.jobID) });

    // assess
    expect(tookMs).toBe(700);
    expect(answered).toMatchObject({ status: 202, body: { success: true, status: 'initialized' } });
    expect(completed.body).toMatchObject({ success: true, status: 'done' });
  });

  it('a question: held for the delay, then asked; answerable at once', async () => {
    // prepare
    const { clock, createUser } = givenSandbox();
    const user = await createUser('SANDBOX_OTP', { asyncDelaySeconds: 2 });
    const startedAt = clock.now();

    // act
    const asked = await user.call(getCardBalance, { cardID: user.cardId, sync: true });
    const tookMs = clock.now() - startedAt;
    const userInputs = [{ id: 'otp', index: 0, query: '', answer: '123456' }];
    const done = await user.call(getCardBalance, { cardID: user.cardId, sync: true, userInputs });

    // assess
    expect(tookMs).toBe(2_000);
    expect(asked.body).toMatchObject({ success: true, status: 'user_input_required' });
    expect(done.body).toMatchObject({ operationID: asked.body.operationID, status: 'done' });
  });
});

describe("the connection's lock: one write after its take, however the call is answered", () => {
  /** The user's lock writes after each take: `free` (removed) or `until` (kept until then). */
  function lockWrites(store: ReturnType<typeof givenSandbox>['store']) {
    const writes: string[] = [];
    const release = store.releaseLock.bind(store);
    store.releaseLock = async (connectionId, operationId, until) => {
      writes.push(until === undefined ? 'free' : 'until');
      return release(connectionId, operationId, until);
    };
    return writes;
  }

  it.each([
    { held: 'sync: true, held until the bank is done (2 s)', delay: 2, sync: true, writes: ['free'] },
    { held: 'sync: false, answered at once', delay: 2, sync: false, writes: ['until'] },
    { held: 'a bank that acts at once', delay: 0, sync: true, writes: ['free'] },
  ])('$held', async ({ delay, sync, writes }) => {
    // prepare
    const { store, clock, createUser } = givenSandbox();
    const user = await createUser('SANDBOX_BENEFICIARY', { asyncDelaySeconds: delay });
    const written = lockWrites(store);

    // act
    await user.call(getMetadata, { sync });
    const heldAfter = (await store.getConnection(user.connectionId))?.lockOperationId;
    clock.advance(delay * 1_000);
    const next = await user.call(getMetadata, { sync });

    // assess: the lock's writes of the first call (the second's follow), and the connection free for the next
    expect(written.slice(0, writes.length)).toEqual(writes);
    expect(written).toHaveLength(writes.length * 2);
    expect(heldAfter === undefined).toBe(writes[0] === 'free');
    expect(next.body).toMatchObject({ success: true });
  });

  it('past what a request can wait: kept until the bank is done, answered initialized', async () => {
    // prepare: a bank slower than the hold
    const { store, createUser } = givenSandbox({ settings: { holdMs: 1_000 } });
    const user = await createUser('SANDBOX_BENEFICIARY', { asyncDelaySeconds: 3 });
    const written = lockWrites(store);

    // act
    const answered = await user.call(getMetadata, { sync: true });
    const connection = await store.getConnection(user.connectionId);

    // assess
    expect(answered.body).toMatchObject({ status: 'initialized' });
    expect(written).toEqual(['until']);
    expect(connection?.lockUntil).toBeGreaterThan(0);
  });
});

describe('a question holds the connection exactly its lifetime', () => {
  it.each([
    { sync: true, name: 'sync: true' },
    { sync: false, name: 'sync: false' },
  ])('$name: taken until the question expires, free from that instant', async ({ sync }) => {
    // prepare
    const { clock, createUser } = givenSandbox();
    const user = await createUser('SANDBOX_OTP', { asyncDelaySeconds: 0, inputTtlSeconds: 30 });
    const asked = await user.call(getCardBalance, { cardID: user.cardId, sync });
    const askedAt = clock.now();

    // act
    clock.set(askedAt + 30_000 - 1);
    const justBefore = await user.call(getCardBalance, { cardID: user.cardId, sync: true });
    clock.set(askedAt + 30_000);
    const atExpiry = await user.call(getCardBalance, { cardID: user.cardId, sync: true });
    const late = await user.call(getOperation, { operationID: String(asked.body.operationID) });

    // assess
    expect(asked.body).toMatchObject({ status: 'user_input_required' });
    expect(justBefore).toEqual({ status: 409, body: failed('OPERATION_IN_PROGRESS') });
    expect(atExpiry.body).toMatchObject({ success: true, status: 'user_input_required' });
    expect(atExpiry.body.operationID).not.toBe(asked.body.operationID);
    expect(late.body).toEqual(failed('USER_INPUT_EXPIRED'));
  });
});
