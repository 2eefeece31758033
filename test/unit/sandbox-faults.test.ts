/**
 * Fault handling over the in-memory store and a manual clock: an outcome `before` the bank sees the
 * request (nothing stored) and `after` it took effect (stored, the answer lost), timeouts, latency spent
 * inside the operation, per-user rules (counted, per path) and the header that wins over them; a
 * refusal that names its operation (the one read, or a new one, failed, for a call that creates one).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { logger } from '#shared/logger';
import { dapiV2Dialect } from '#shared/provider/interface/dialects';
import { faultWaitBudgetMs } from '#shared/provider/interface/limits';
import { FaultRule } from '#shared/sandbox/admin-schemas';
import { v2CreateBeneficiary } from '#shared/sandbox/dialect-v2/operations';
import { V2CreateBeneficiaryRequest } from '#shared/sandbox/dialect-v2/requests';
import { runActionWithFault } from '#shared/sandbox/faults';
import type { OperationContext } from '#shared/sandbox/operation-spec';
import { createBeneficiary } from '#shared/sandbox/operations/beneficiaries';
import { getMetadata } from '#shared/sandbox/operations/metadata';
import { getOperation } from '#shared/sandbox/operations/operation-get';
import { createTransfer } from '#shared/sandbox/operations/transfers';
import {
  asHttp,
  givenSandbox,
  testAppSecret,
  testSandboxOptions,
  walletBeneficiary,
} from '../support/fake-sandbox-store.ts';
import { ManualClock } from '../support/manual-clock.ts';

// Every injected fault logs a warning: kept out of the test output.
beforeAll(() => logger.setLogLevel('ERROR'));

const TRANSFER = '/v1/payment/transfer/create';
const METADATA = '/v1/metadata/accounts/get';

const failed = (type: string) =>
  expect.objectContaining({ success: false, status: 'failed', type, msg: expect.any(String) });

/** A user of the beneficiary bank with the wallet beneficiary, and a transfer of 40 AED to it. */
async function givenTransferringUser() {
  const world = givenSandbox();
  const user = await world.createUser('SANDBOX_BENEFICIARY');
  await user.call(createBeneficiary, { sync: true, ...walletBeneficiary() });
  // The bank's id (the creation's reference is a receipt number).
  const [beneficiary] = await world.store.listBeneficiaries(user.connectionId);
  const receiverID = String(beneficiary?.id);
  const transfer = (headers: Record<string, string> = {}) =>
    user.call(
      createTransfer,
      { sync: true, amount: 40, senderID: user.accountId, receiverID },
      { path: TRANSFER, headers },
    );
  const state = async () => {
    const { accounts, transfers } = await world.store.getUserAssets(user.connectionId);
    return {
      balanceMinor: accounts[0]?.balanceMinor,
      transfers,
      operations: world.store.listOperations(user.connectionId),
    };
  };
  return { ...world, user, transfer, state };
}

/** The `opInfo` an operation read carries beside a failed operation's envelope (the dapi-v2 dialect's). */
const failedInfo = (body: Record<string, unknown>) =>
  expect.objectContaining({ status: 'failed', errorType: body.type });

describe('a fault on a provider operation', () => {
  it('before the bank sees it: answers the error, and nothing is stored', async () => {
    // prepare
    const { transfer, state, store, user } = await givenTransferringUser();
    const before = await state();

    // act
    const reply = await transfer({ 'x-sandbox-fault': 'error', 'x-sandbox-fault-status': '503' });
    const after = await state();

    // assess
    expect(reply).toEqual({ status: 503, body: failed('SERVICE_UNAVAILABLE') });
    expect(after).toEqual(before);
    expect((await store.getConnection(user.connectionId))?.lockOperationId).toBeUndefined();
  });

  it('after the operation took effect: answers the error, yet the transfer and its operation are stored', async () => {
    // prepare
    const { transfer, state } = await givenTransferringUser();
    const before = await state();

    // act
    const reply = await transfer({
      'x-sandbox-fault': 'error',
      'x-sandbox-fault-status': '503',
      'x-sandbox-fault-phase': 'after',
    });
    const after = await state();

    // assess
    expect(reply).toEqual({ status: 503, body: failed('SERVICE_UNAVAILABLE') });
    expect(after.balanceMinor).toBe((before.balanceMinor ?? 0) - 4_000);
    expect(after.transfers).toHaveLength(1);
    expect(after.operations.slice(before.operations.length)).toEqual([
      expect.objectContaining({
        kind: 'transfer.create',
        response: expect.objectContaining({ status: 'done', reference: after.transfers[0]?.reference }),
      }),
    ]);
  });

  it('times out before the bank: hangs for the given time on the clock, answers 504, stores nothing', async () => {
    // prepare
    const { transfer, state, clock } = await givenTransferringUser();
    const before = await state();
    const startedAt = clock.now();

    // act
    const reply = await transfer({ 'x-sandbox-fault': 'timeout', 'x-sandbox-timeout-ms': '300' });

    // assess
    expect(reply).toEqual({ status: 504, body: failed('GATEWAY_TIMEOUT') });
    expect(clock.now() - startedAt).toBe(300);
    expect(await state()).toEqual(before);
  });

  it('times out after the transfer took effect, for the default time when none is given', async () => {
    // prepare
    const { transfer, state, clock } = await givenTransferringUser();
    const startedAt = clock.now();

    // act
    const reply = await transfer({ 'x-sandbox-fault': 'timeout', 'x-sandbox-fault-phase': 'after' });

    // assess
    expect(reply).toEqual({ status: 504, body: failed('GATEWAY_TIMEOUT') });
    expect(clock.now() - startedAt).toBe(testSandboxOptions.timeoutFaultMs);
    expect((await state()).transfers).toHaveLength(1);
  });

  it('shortens the default hang after a latency, so the whole wait stays inside the fault budget', async () => {
    // prepare
    const { transfer, clock } = await givenTransferringUser();
    const startedAt = clock.now();

    // act
    const reply = await transfer({
      'x-sandbox-fault': 'timeout',
      'x-sandbox-fault-phase': 'after',
      'x-sandbox-latency-ms': '20000',
    });

    // assess
    expect(reply).toEqual({ status: 504, body: failed('GATEWAY_TIMEOUT') });
    expect(clock.now() - startedAt).toBe(faultWaitBudgetMs);
  });

  it.each([
    [{ 'x-sandbox-latency-ms': String(faultWaitBudgetMs + 1) }],
    [{ 'x-sandbox-fault': 'timeout', 'x-sandbox-timeout-ms': String(faultWaitBudgetMs + 1) }],
    [{ 'x-sandbox-fault': 'timeout', 'x-sandbox-latency-ms': '20000', 'x-sandbox-timeout-ms': '5001' }],
  ])('refuses waits over the fault budget (BAD_REQUEST), running nothing: %o', async (headers) => {
    // prepare
    const { transfer, state, clock } = await givenTransferringUser();
    const before = await state();
    const startedAt = clock.now();

    // act
    const reply = await transfer(headers);

    // assess
    expect(reply).toEqual({ status: 400, body: failed('BAD_REQUEST') });
    expect(clock.now()).toBe(startedAt);
    expect(await state()).toEqual(before);
  });

  it("spends a rule's latency inside the operation: the bank sees the request that much later", async () => {
    // prepare
    const { sandbox, transfer, state, clock, user } = await givenTransferringUser();
    await sandbox.administration.setFaults({
      appSecret: testAppSecret,
      connectionID: user.connectionId,
      faults: [{ latencyMs: 600 }],
    });
    const startedAt = clock.now();

    // act
    const reply = await transfer();
    const { transfers, operations } = await state();

    // assess
    expect(reply.body).toMatchObject({ success: true, status: 'done' });
    expect(transfers[0]?.createdAt).toBe(startedAt + 600);
    expect(operations.at(-1)?.createdAt).toBe(startedAt + 600);
  });

  it('uses a counted rule once, only on its path', async () => {
    // prepare
    const { sandbox, transfer, state, user } = await givenTransferringUser();
    await sandbox.administration.setFaults({
      appSecret: testAppSecret,
      connectionID: user.connectionId,
      faults: [{ path: TRANSFER, outcome: 'error', status: 500, times: 1 }],
    });

    // act
    const metadata = await user.call(getMetadata, { sync: true }, { path: METADATA });
    const first = await transfer();
    const afterFirst = await state();
    const second = await transfer();

    // assess
    expect(metadata.body).toMatchObject({ success: true, status: 'done' });
    expect(first).toEqual({ status: 500, body: failed('INTERNAL_ERROR') });
    expect(afterFirst.transfers).toEqual([]);
    expect(second.body).toMatchObject({ success: true, status: 'done' });
    expect((await state()).transfers).toHaveLength(1);
  });

  it('lets a header fault win over the rules, without using up a counted rule', async () => {
    // prepare
    const { sandbox, user } = await givenTransferringUser();
    await sandbox.administration.setFaults({
      appSecret: testAppSecret,
      connectionID: user.connectionId,
      faults: [{ outcome: 'error', status: 503, times: 1 }],
    });
    const metadata = (headers: Record<string, string> = {}) =>
      user.call(getMetadata, { sync: true }, { path: METADATA, headers });

    // act
    const byHeader = await metadata({ 'x-sandbox-fault': 'error', 'x-sandbox-fault-status': '502' });
    const byRule = await metadata();
    const healthy = await metadata();

    // assess
    expect(byHeader).toEqual({ status: 502, body: failed('BAD_GATEWAY') });
    expect(byRule).toEqual({ status: 503, body: failed('SERVICE_UNAVAILABLE') });
    expect(healthy.status).toBe(200);
  });

  it('refuses a fault header it does not understand (BAD_REQUEST), running nothing', async () => {
    // prepare
    const { transfer, state } = await givenTransferringUser();
    const before = await state();

    // act
    const reply = await transfer({ 'x-sandbox-fault': 'error', 'x-sandbox-fault-status': '418' });

    // assess
    expect(reply).toEqual({ status: 400, body: failed('BAD_REQUEST') });
    expect(await state()).toEqual(before);
  });
});

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

describe('a refusal that names its operation (namesOperation)', () => {
  const READ = '/v1/operation/get';
  const BENEFICIARY = '/v1/payment/beneficiaries/create';
  const refusal = (path: string, extra: Record<string, unknown> = {}) => ({
    path,
    outcome: 'refusal' as const,
    status: 422,
    type: 'INSUFFICIENT_BALANCE' as const,
    namesOperation: true,
    times: 1,
    ...extra,
  });

  it('on the operation read: the envelope names the operation read, by the id field it was read with', async () => {
    // prepare: a done transfer and a done metadata operation to read
    const { sandbox, user, transfer } = await givenTransferringUser();
    const done = await transfer();
    const operationID = String(done.body.operationID);
    const metadata = await user.call(getMetadata, { sync: true }, { path: METADATA });
    const jobID = String(metadata.body.jobID);
    await sandbox.administration.setFaults({
      appSecret: testAppSecret,
      connectionID: user.connectionId,
      faults: [refusal(READ), refusal(READ, { status: 429, type: 'TOO_MANY_REQUESTS' })],
    });
    const read = (id: { operationID: string } | { jobID: string }) =>
      user.call(getOperation, id, { path: READ });

    // act
    const byOperationId = await read({ operationID });
    const byJobId = await read({ jobID });
    const healthy = await read({ operationID });

    // assess
    expect(byOperationId).toEqual({
      status: 422,
      body: {
        operationID,
        success: false,
        status: 'failed',
        type: 'INSUFFICIENT_BALANCE',
        msg: expect.any(String),
      },
    });
    expect(byJobId).toEqual({
      status: 429,
      body: { jobID, success: false, status: 'failed', type: 'TOO_MANY_REQUESTS', msg: expect.any(String) },
    });
    expect(healthy.body).toMatchObject({ operationID, success: true, status: 'done' });
  });

  it('on a transfer: a new operation, failed with the refusal, that nothing moved and a read answers alike', async () => {
    // prepare
    const { sandbox, user, transfer, state } = await givenTransferringUser();
    const before = await state();
    await sandbox.administration.setFaults({
      appSecret: testAppSecret,
      connectionID: user.connectionId,
      faults: [refusal(TRANSFER, { status: 429, type: 'TOO_MANY_REQUESTS', retryAfterSeconds: 30 })],
    });

    // act
    const refused = await transfer();
    const operationID = String(refused.body.operationID);
    const readBack = await user.call(getOperation, { operationID }, { path: '/v1/operation/get' });
    const after = await state();

    // assess
    expect(refused).toEqual({
      status: 429,
      body: {
        operationID: expect.stringMatching(/^op_/),
        success: false,
        status: 'failed',
        type: 'TOO_MANY_REQUESTS',
        msg: 'Too many requests',
      },
    });
    expect(readBack).toEqual({ status: 200, body: { ...refused.body, opInfo: failedInfo(refused.body) } });
    expect(after.balanceMinor).toBe(before.balanceMinor);
    expect(after.transfers).toEqual([]);
    expect(after.operations.slice(before.operations.length)).toEqual([
      expect.objectContaining({ id: operationID, kind: 'transfer.create', state: 'final', httpStatus: 429 }),
    ]);
  });

  it("on the v2 dialect's creation path: a new operation named by operationID, failed, none created", async () => {
    // prepare
    const V2_BENEFICIARY = dapiV2Dialect.paths.beneficiariesCreate;
    const world = givenSandbox();
    const user = await world.createUser('SANDBOX_BENEFICIARY');
    await world.sandbox.administration.setFaults({
      appSecret: testAppSecret,
      connectionID: user.connectionId,
      faults: [refusal(V2_BENEFICIARY, { status: 409, type: 'BENEFICIARY_ALREADY_EXISTS' })],
    });
    const create = (context: OperationContext, body: object) =>
      v2CreateBeneficiary(context, V2CreateBeneficiaryRequest.parse(body));

    // act
    const refused = await user.call(create, walletBeneficiary(), { path: V2_BENEFICIARY });
    const operationID = String(refused.body.operationID);
    const readBack = await user.call(getOperation, { operationID }, { path: '/v2/operation/get' });

    // assess
    expect(refused).toEqual({
      status: 409,
      body: {
        operationID: expect.stringMatching(/^op_/),
        success: false,
        status: 'failed',
        type: 'BENEFICIARY_ALREADY_EXISTS',
        msg: expect.any(String),
      },
    });
    expect(readBack).toEqual({ status: 200, body: { ...refused.body, opInfo: failedInfo(refused.body) } });
    expect(await world.store.listBeneficiaries(user.connectionId)).toEqual([]);
  });

  it('on a beneficiary creation: a new job, failed, none created', async () => {
    // prepare
    const world = givenSandbox();
    const user = await world.createUser('SANDBOX_BENEFICIARY');
    await world.sandbox.administration.setFaults({
      appSecret: testAppSecret,
      connectionID: user.connectionId,
      faults: [refusal(BENEFICIARY, { status: 409, type: 'BENEFICIARY_ALREADY_EXISTS' })],
    });

    // act
    const refused = await user.call(
      createBeneficiary,
      { sync: true, ...walletBeneficiary() },
      { path: BENEFICIARY },
    );
    const jobID = String(refused.body.jobID);
    const readBack = await user.call(getOperation, { jobID }, { path: '/v1/operation/get' });

    // assess
    expect(refused).toEqual({
      status: 409,
      body: {
        jobID,
        success: false,
        status: 'failed',
        type: 'BENEFICIARY_ALREADY_EXISTS',
        msg: expect.any(String),
      },
    });
    expect(refused.body).toMatchObject({ jobID: expect.stringMatching(/^job_/) });
    expect(refused.body.operationID).toBeUndefined();
    expect(readBack).toEqual({ status: 200, body: { ...refused.body, opInfo: failedInfo(refused.body) } });
    expect(await world.store.listBeneficiaries(user.connectionId)).toEqual([]);
  });

  it('by headers for one request: type, Retry-After and the named operation', async () => {
    // prepare
    const { transfer, state } = await givenTransferringUser();
    const before = await state();
    const headers = {
      'x-sandbox-fault': 'refusal',
      'x-sandbox-fault-status': '429',
      'x-sandbox-fault-type': 'TOO_MANY_REQUESTS',
      'x-sandbox-retry-after-seconds': '7',
      'x-sandbox-names-operation': 'true',
    };

    // act
    const refused = await transfer(headers);
    const thrown = await runActionWithFault(
      { clock: new ManualClock(), defaultTimeoutMs: () => 1_000 },
      { ...headers, 'x-sandbox-names-operation': 'false' },
      () => ({ status: 200, body: {} }),
    ).catch((error: unknown) => error);

    // assess
    expect(refused).toEqual({
      status: 429,
      body: {
        operationID: expect.stringMatching(/^op_/),
        success: false,
        status: 'failed',
        type: 'TOO_MANY_REQUESTS',
        msg: expect.any(String),
      },
    });
    expect((await state()).transfers).toEqual(before.transfers);
    expect(thrown).toMatchObject({ type: 'TOO_MANY_REQUESTS', status: 429, headers: { 'retry-after': '7' } });
  });

  it.each([
    ['on an error', { outcome: 'error', status: 503, path: TRANSFER, namesOperation: true }],
    ['without a path', { outcome: 'refusal', status: 429, type: 'TOO_MANY_REQUESTS', namesOperation: true }],
    [
      'on a path that creates no operation',
      { outcome: 'refusal', status: 429, type: 'TOO_MANY_REQUESTS', path: METADATA, namesOperation: true },
    ],
    [
      'not a boolean',
      { outcome: 'refusal', status: 429, type: 'TOO_MANY_REQUESTS', path: TRANSFER, namesOperation: 'yes' },
    ],
  ])('is refused as a rule %s', (_label, rule) => {
    expect(FaultRule.safeParse(rule).success).toBe(false);
  });

  it.each([READ, TRANSFER, '/v1/payment/transfer/autoflow', BENEFICIARY])('is a valid rule on %s', (path) => {
    expect(FaultRule.safeParse(refusal(path)).success).toBe(true);
  });

  it.each([
    ['on a path that creates no operation', METADATA, { 'x-sandbox-names-operation': 'true' }],
    ['with a value that is not true or false', TRANSFER, { 'x-sandbox-names-operation': 'yes' }],
    ['on an error', TRANSFER, { 'x-sandbox-names-operation': 'true', 'x-sandbox-fault': 'error' }],
  ])('is refused BAD_REQUEST by header %s, running nothing', async (_label, path, extra) => {
    // prepare
    const { user, state } = await givenTransferringUser();
    const before = await state();
    const headers = {
      'x-sandbox-fault': 'refusal',
      'x-sandbox-fault-status': '429',
      'x-sandbox-fault-type': 'TOO_MANY_REQUESTS',
      ...extra,
    };

    // act
    const reply = await user.call(getMetadata, { sync: true }, { path, headers });

    // assess
    expect(reply).toEqual({ status: 400, body: failed('BAD_REQUEST') });
    expect(await state()).toEqual(before);
  });

  it('is refused BAD_REQUEST by header on a public route', async () => {
    const reply = await asHttp(
      runActionWithFault(
        { clock: new ManualClock(), defaultTimeoutMs: () => 1_000 },
        {
          'x-sandbox-fault': 'refusal',
          'x-sandbox-fault-status': '429',
          'x-sandbox-fault-type': 'TOO_MANY_REQUESTS',
          'x-sandbox-names-operation': 'true',
        },
        () => ({ status: 200, body: {} }),
      ),
    );
    expect(reply).toEqual({ status: 400, body: failed('BAD_REQUEST') });
  });
});
