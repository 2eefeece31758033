/**
 * Fault handling over the in-memory store and a manual clock: a refusal fault, a pending fault on
 * the operation read, a fault on a public route.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { logger } from '#shared/logger';
import { FaultRule } from '#shared/sandbox/admin-schemas';
import { runActionWithFault } from '#shared/sandbox/faults';
import { createBeneficiary } from '#shared/sandbox/operations/beneficiaries';
import { getOperation } from '#shared/sandbox/operations/operation-get';
import { createTransfer } from '#shared/sandbox/operations/transfers';
import { asHttp, givenSandbox, testAppSecret, walletBeneficiary } from '../support/given-sandbox.ts';
import { ManualClock } from '../support/manual-clock.ts';
import { failed, givenTransferringUser, TRANSFER } from '../support/sandbox-faults.ts';

// Every injected fault logs a warning: kept out of the test output.
beforeAll(() => logger.setLogLevel('ERROR'));

describe('a refusal fault', () => {
  it('answers its type and 4xx status before effect; a rule `after` it lets the request take effect', async () => {
    // prepare
    const { sandbox, user, transfer, state } = await givenTransferringUser();
    const before = await state();
    await sandbox.administration.setFaults({
      appSecret: testAppSecret,
      connectionID: user.connectionId,
      faults: [
        {
          path: TRANSFER,
          outcome: 'refusal',
          status: 429,
          type: 'TOO_MANY_REQUESTS',
          retryAfterSeconds: 2,
          times: 1,
        },
        {
          path: TRANSFER,
          outcome: 'refusal',
          status: 404,
          type: 'INVALID_OPERATION_ID',
          phase: 'after',
          times: 1,
        },
      ],
    });

    // act
    const limited = await transfer();
    const afterLimited = await state();
    const refused = await transfer();
    const afterRefused = await state();

    // assess: the 429 changed nothing; the `after` refusal answers a transfer that took effect
    expect(limited).toEqual({ status: 429, body: failed('TOO_MANY_REQUESTS') });
    expect(afterLimited).toEqual(before);
    expect(refused).toEqual({ status: 404, body: failed('INVALID_OPERATION_ID') });
    expect(afterRefused.transfers).toHaveLength(1);
    expect(afterRefused.balanceMinor).toBe((before.balanceMinor ?? 0) - 4_000);
  });

  it('with `answered`, only on a request that answers a question: the answered transfer, spent after effect', async () => {
    // prepare: a bank that asks a one-time password on transfers
    const world = givenSandbox();
    const user = await world.createUser('SANDBOX_OTP');
    const asked = await user.call(createBeneficiary, { sync: true, ...walletBeneficiary() });
    await user.call(createBeneficiary, {
      sync: true,
      ...walletBeneficiary(),
      jobID: String(asked.body.jobID),
      userInputs: [{ id: 'otp', index: 0, query: 'OTP', answer: '123456' }],
    });
    const [beneficiary] = await world.store.listBeneficiaries(user.connectionId);
    await world.sandbox.administration.setFaults({
      appSecret: testAppSecret,
      connectionID: user.connectionId,
      faults: [
        {
          path: TRANSFER,
          outcome: 'refusal',
          status: 404,
          type: 'INVALID_OPERATION_ID',
          phase: 'after',
          answered: true,
          times: 1,
        },
      ],
    });
    const order = { sync: true, amount: 40, senderID: user.accountId, receiverID: String(beneficiary?.id) };

    // act
    const question = await user.call(createTransfer, order, { path: TRANSFER });
    const answered = await user.call(
      createTransfer,
      {
        ...order,
        operationID: String(question.body.operationID),
        userInputs: [{ id: 'otp', index: 0, query: 'OTP', answer: '123456' }],
      },
      { path: TRANSFER },
    );
    const { transfers } = await world.store.getUserAssets(user.connectionId);

    // assess
    expect(question.body).toMatchObject({ status: 'user_input_required' });
    expect(answered).toEqual({ status: 404, body: failed('INVALID_OPERATION_ID') });
    expect(transfers).toHaveLength(1);
    expect(transfers[0]?.operationId).toBe(question.body.operationID);
  });

  it('takes a type and a 4xx status; an error keeps to its 5xx statuses', () => {
    const valid = FaultRule.safeParse({
      outcome: 'refusal',
      status: 429,
      type: 'TOO_MANY_REQUESTS',
      retryAfterSeconds: 1,
    });
    const untyped = FaultRule.safeParse({ outcome: 'refusal', status: 429 });
    const serverStatus = FaultRule.safeParse({ outcome: 'refusal', status: 503, type: 'BAD_REQUEST' });
    const unknownType = FaultRule.safeParse({ outcome: 'refusal', status: 400, type: 'NO_SUCH_TYPE' });
    const clientError = FaultRule.safeParse({ outcome: 'error', status: 429 });
    const typedError = FaultRule.safeParse({ outcome: 'error', status: 503, type: 'BAD_REQUEST' });

    expect(valid.success).toBe(true);
    expect(
      [untyped, serverStatus, unknownType, clientError, typedError].map((parsed) => parsed.success),
    ).toEqual([false, false, false, false, false]);
  });
});

describe('a pending fault (outcome `pending`, on the operation read)', () => {
  it('answers `initialized` for the operation read, as often as its rule says, then what the operation is', async () => {
    // prepare: a transfer done at the bank
    const { sandbox, user, transfer } = await givenTransferringUser();
    const done = await transfer();
    const operationID = String(done.body.operationID);
    await sandbox.administration.setFaults({
      appSecret: testAppSecret,
      connectionID: user.connectionId,
      faults: [{ path: '/v2/operation/get', outcome: 'pending', times: 2 }],
    });
    const read = () => user.call(getOperation, { operationID }, { path: '/v2/operation/get' });

    // act
    const replies = [await read(), await read(), await read()];

    // assess
    const running = { status: 200, body: { operationID, success: true, status: 'initialized' } };
    expect(replies.slice(0, 2)).toEqual([running, running]);
    expect(replies[2]?.body).toMatchObject({ operationID, status: 'done' });
  });

  it('is a rule of the operation read only', () => {
    expect(FaultRule.safeParse({ path: '/v2/operation/get', outcome: 'pending' }).success).toBe(true);
    expect(FaultRule.safeParse({ path: TRANSFER, outcome: 'pending' }).success).toBe(false);
    expect(FaultRule.safeParse({ outcome: 'pending' }).success).toBe(false);
  });
});

describe('a fault on a public route', () => {
  const ok = { status: 200, body: { status: 'ok' } };

  it('spends the latency before the action', async () => {
    // prepare
    const clock = new ManualClock();
    const startedAt = clock.now();
    let actedAt: number | undefined;

    // act
    const reply = await runActionWithFault(
      { clock, defaultTimeoutMs: () => 1_000 },
      { 'x-sandbox-latency-ms': '300' },
      () => {
        actedAt = clock.now();
        return ok;
      },
    );

    // assess
    expect(reply).toEqual(ok);
    expect(actedAt).toBe(startedAt + 300);
  });

  it('stops the action with a `before` outcome, and loses its answer with an `after` one', async () => {
    // prepare
    const clock = new ManualClock();
    const settings = { clock, defaultTimeoutMs: () => 1_000 };
    const actions: string[] = [];
    const act = (name: string) => () => {
      actions.push(name);
      return ok;
    };

    // act
    const before = await asHttp(runActionWithFault(settings, { 'x-sandbox-fault': 'error' }, act('before')));
    const after = await asHttp(
      runActionWithFault(
        settings,
        { 'x-sandbox-fault': 'timeout', 'x-sandbox-fault-phase': 'after' },
        act('after'),
      ),
    );

    // assess
    expect(before).toEqual({ status: 500, body: failed('INTERNAL_ERROR') });
    expect(after).toEqual({ status: 504, body: failed('GATEWAY_TIMEOUT') });
    expect(actions).toEqual(['after']);
  });
});
