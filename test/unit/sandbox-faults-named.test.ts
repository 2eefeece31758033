/**
 * Fault handling over the in-memory store and a manual clock: a refusal that names its operation
 * (the one read, or a new one, failed, for a call that creates one).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { logger } from '#shared/logger';
import { dapiV2Dialect } from '#shared/provider/interface/dialects';
import { FaultRule } from '#shared/sandbox/admin-schemas';
import { v2CreateBeneficiary } from '#shared/sandbox/dialect-v2/operations';
import { V2CreateBeneficiaryRequest } from '#shared/sandbox/dialect-v2/requests';
import { runActionWithFault } from '#shared/sandbox/faults';
import type { OperationContext } from '#shared/sandbox/operation-spec';
import { createBeneficiary } from '#shared/sandbox/operations/beneficiaries';
import { getMetadata } from '#shared/sandbox/operations/metadata';
import { getOperation } from '#shared/sandbox/operations/operation-get';
import { asHttp, givenSandbox, testAppSecret, walletBeneficiary } from '../support/given-sandbox.ts';
import { ManualClock } from '../support/manual-clock.ts';
import { failed, failedInfo, givenTransferringUser, METADATA, TRANSFER } from '../support/sandbox-faults.ts';

// Every injected fault logs a warning: kept out of the test output.
beforeAll(() => logger.setLogLevel('ERROR'));

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
