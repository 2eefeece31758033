/**
 * The caller's cancel and list over the running local stack: a deposit cancelled in each state
 * before its transfer (its event heard, its wake-up schedule deleted, its connection free for the
 * next deposit), refused at its transfer and once finished; a connection's deposits listed newest
 * first, page after page.
 */
import { describe, expect, it } from 'vitest';
import {
  cancelDeposit,
  depositWhen,
  listDeposits,
  localSchedules,
  otpAnswer,
  readDeposit,
  startDeposit,
  webhookDeliveries,
} from '../support/deposits.ts';
import { createUser, eventually, stateOf } from '../support/sandbox.ts';

const asking = (deposit: Record<string, unknown>) => deposit.status === 'user_input_required';

describe('cancel', () => {
  it('ends a deposit waiting for the answer to the bank: failed CANCELLED, heard, and the connection free', async () => {
    // prepare: the OTP bank asks before creating the beneficiary, and holds the connection for the
    // answer 6 s (a cancel does not withdraw the bank's question: the bank lets it expire). The
    // bank waits as long as the stack does (INPUT_TTL_SECONDS): the next deposit's own questions
    // must be answered within it, on a loaded machine too.
    const user = await createUser('SANDBOX_OTP', { inputTtlSeconds: 6 });
    const started = await startDeposit(user, { amount: 40 });
    const id = started.body.operationID;
    await depositWhen(user, id, asking);

    // act
    const cancelled = await cancelDeposit(user, id);

    // assess
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ operationID: id, status: 'failed', type: 'CANCELLED' });
    expect((await readDeposit(user, id)).body).toMatchObject({ status: 'failed', step: 'completed' });
    const heard = await eventually(async () => {
      const { deliveries } = await webhookDeliveries(id);
      return deliveries.find((delivery) => delivery.type === 'deposit.failed');
    });
    expect(heard).toMatchObject({ verified: true, data: { type: 'CANCELLED' } });
    // The bank's question was abandoned, not answered: once the bank let it expire, the next
    // deposit asks again, and completes.
    // Until then the bank refuses it the connection (`OPERATION_IN_PROGRESS`), and it tries again
    // after waits that grow toward half a minute: on a loaded machine, a try that lands just before
    // the question expires puts the next one a longer wait later.
    const next = await startDeposit(user, { amount: 41 }, 'after-cancel');
    const askedAgain = await depositWhen(user, next.body.operationID, asking, 60_000);
    await startDeposit(user, { amount: 41, userInputs: otpAnswer(askedAgain) }, 'after-cancel');
    const askedForTransfer = await depositWhen(
      user,
      next.body.operationID,
      (deposit) => asking(deposit) && deposit.step === 'transfer',
    );
    await startDeposit(user, { amount: 41, userInputs: otpAnswer(askedForTransfer) }, 'after-cancel');
    // The whole deposit, so that a failure names its type and history.
    expect(await depositWhen(user, next.body.operationID)).toMatchObject({ status: 'done' });
    expect((await stateOf(user)).transfers.map((transfer) => transfer.amount)).toEqual([41]);
    // Room for the next deposit's own 60 s wait, and the steps around it, on a loaded machine.
  }, 90_000);

  it('ends a deposit waiting out a 24-hour cool-down, and deletes its wake-up schedule', async () => {
    const user = await createUser('SANDBOX_COOLDOWN');
    const started = await startDeposit(user, { amount: 30 });
    const id = started.body.operationID;
    await depositWhen(user, id, (deposit) => deposit.step === 'wait-cooldown');
    await eventually(async () =>
      (await localSchedules()).schedules.find((schedule) => schedule.Name.startsWith(id)),
    );

    const cancelled = await cancelDeposit(user, id);

    expect(cancelled.body).toMatchObject({ status: 'failed', type: 'CANCELLED' });
    const left = (await localSchedules()).schedules.filter((schedule) => schedule.Name.startsWith(id));
    expect(left).toEqual([]);
    expect((await stateOf(user)).transfers).toEqual([]);
  });

  it('ends a deposit waiting for an answer about the bank metadata (resolve-bank)', async () => {
    const user = await createUser('SANDBOX_OTP_READS');
    const started = await startDeposit(user, { amount: 30 });
    const id = started.body.operationID;
    await depositWhen(user, id, (deposit) => asking(deposit) && deposit.step === 'resolve-bank');

    const cancelled = await cancelDeposit(user, id);

    expect(cancelled.body).toMatchObject({ status: 'failed', type: 'CANCELLED', step: 'completed' });
  });

  it('refuses a deposit at its transfer (waiting for the transfer password) and a finished one, moving nothing', async () => {
    // The finished deposit first: the question of the waiting one expires after the stack's 6 s
    // (INPUT_TTL_SECONDS), which another deposit's whole run may outlast on a loaded machine.
    const finished = await createUser('SANDBOX_BENEFICIARY');
    const done = await startDeposit(finished, { amount: 30 });
    await depositWhen(finished, done.body.operationID);
    const atTransfer = await createUser('SANDBOX_OTP_INLINE');
    const waiting = await startDeposit(atTransfer, { amount: 30 });
    const waitingId = waiting.body.operationID;
    const before = await depositWhen(
      atTransfer,
      waitingId,
      (deposit) => asking(deposit) && deposit.step === 'transfer',
    );

    const refusedAtTransfer = await cancelDeposit(atTransfer, waitingId);
    const refusedDone = await cancelDeposit(finished, done.body.operationID);

    for (const refused of [refusedAtTransfer, refusedDone]) {
      expect(refused.status).toBe(409);
      expect(refused.body).toMatchObject({
        success: false,
        status: 'failed',
        type: 'DEPOSIT_NOT_CANCELLABLE',
      });
    }
    expect((await readDeposit(atTransfer, waitingId)).body).toMatchObject({
      status: 'user_input_required',
      step: 'transfer',
      updatedAt: before.updatedAt,
    });
    expect((await readDeposit(finished, done.body.operationID)).body.status).toBe('done');
  });

  it("answers 404 to another connection's cancel", async () => {
    const owner = await createUser('SANDBOX_COOLDOWN');
    const stranger = await createUser('SANDBOX_COOLDOWN');
    const started = await startDeposit(owner, { amount: 30 });

    const refused = await cancelDeposit(stranger, started.body.operationID);

    expect(refused.status).toBe(404);
    expect(refused.body).toMatchObject({ type: 'DEPOSIT_NOT_FOUND' });
    expect((await readDeposit(owner, started.body.operationID)).body.status).not.toBe('failed');
  });
});

describe('list', () => {
  it("answers the connection's deposits newest first, page by page with a cursor, and no one else's", async () => {
    const user = await createUser('SANDBOX_COOLDOWN');
    const other = await createUser('SANDBOX_COOLDOWN');
    const ids: string[] = [];
    for (const amount of [11, 12, 13, 14, 15]) {
      ids.push((await startDeposit(user, { amount })).body.operationID);
      // Creation times a millisecond apart at least, so newest first is one order.
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await startDeposit(other, { amount: 99 });

    const pages = [];
    let cursor: string | undefined;
    do {
      const page = await listDeposits(user, { limit: 2, ...(cursor ? { cursor } : {}) });
      expect(page.status).toBe(200);
      pages.push(page.body.deposits.map((deposit: { operationID: string }) => deposit.operationID));
      cursor = page.body.cursor;
    } while (cursor);

    expect(pages).toEqual([ids.slice(3).reverse(), ids.slice(1, 3).reverse(), [ids[0]]]);
    const whole = await listDeposits(user);
    expect(whole.body.deposits.map((deposit: { amount: number }) => deposit.amount)).toEqual([
      15, 14, 13, 12, 11,
    ]);
    expect(whole.body.cursor).toBeUndefined();
  });

  it('refuses a cursor it did not give, and a limit out of bounds, as BAD_REQUEST-like envelopes', async () => {
    const user = await createUser('SANDBOX_BENEFICIARY');

    const badCursor = await listDeposits(user, { cursor: 'bm90LWEtY3Vyc29y' });
    const badLimit = await listDeposits(user, { limit: 1_000 });

    expect(badCursor.status).toBe(400);
    expect(badCursor.body).toMatchObject({ success: false, type: 'INVALID_CURSOR' });
    expect(badLimit.status).toBe(400);
    expect(badLimit.body).toMatchObject({ success: false, type: 'BAD_REQUEST' });
  });
});
