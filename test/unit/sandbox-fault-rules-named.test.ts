/**
 * Fault controls: refusals that name their operation (`namesOperation`) with their `Retry-After`.
 * In process: the sandbox's routes composed as their handlers are, over its in-memory fake store
 * (the sanctioned stand-in for its table) and a manual clock
 * (`test/support/in-process-sandbox.ts`).
 */
import { describe, expect, it } from 'vitest';
import {
  appSecret,
  createUser,
  failed,
  failedOperation,
  rawRequest,
  stateOf,
  type TestUser,
  walletBeneficiary,
} from '../support/in-process-sandbox.ts';
import { givenTransferringUser, METADATA, setFaults, TRANSFER } from '../support/sandbox-fault-rules.ts';

describe('a refusal that names its operation (namesOperation)', () => {
  const READ = '/v1/operation/get';

  /** A provider call answered as it came: status, `Retry-After` and body. */
  async function rawCall(user: TestUser, path: string, body: Record<string, unknown>, headers = {}) {
    const response = await rawRequest(
      'POST',
      path,
      JSON.stringify({ appSecret, userSecret: user.userSecret, ...body }),
      { 'content-type': 'application/json', authorization: `Bearer ${user.accessToken}`, ...headers },
    );
    return {
      status: response.status,
      retryAfter: response.headers['retry-after'] ?? null,
      body: JSON.parse(response.text) as Record<string, unknown>,
    };
  }

  it('on the operation read: 429 with Retry-After, naming the operation read; the next read answers it', async () => {
    // prepare
    const { user, transfer } = await givenTransferringUser();
    const done = await transfer();
    const operationID = String(done.body.operationID);
    const set = await setFaults(user.connectionID, [
      {
        path: READ,
        outcome: 'refusal',
        status: 429,
        type: 'TOO_MANY_REQUESTS',
        retryAfterSeconds: 3,
        namesOperation: true,
        times: 1,
      },
    ]);

    // act
    const refused = await rawCall(user, READ, { operationID });
    const next = await user.call(READ, { operationID });

    // assess
    expect(set.status).toBe(200);
    expect(set.body.faults).toEqual([expect.objectContaining({ namesOperation: true })]);
    expect(refused).toEqual({
      status: 429,
      retryAfter: '3',
      body: expect.objectContaining({ operationID, ...failedFields('TOO_MANY_REQUESTS') }),
    });
    expect(next.status).toBe(200);
    expect(next.body).toMatchObject({ operationID, success: true, status: 'done' });
  });

  it('on a transfer: a new operation, failed, nothing debited, and reading it answers the same refusal', async () => {
    // prepare
    const { user, transfer } = await givenTransferringUser();
    const before = await stateOf(user);
    await setFaults(user.connectionID, [
      {
        path: TRANSFER,
        outcome: 'refusal',
        status: 422,
        type: 'INSUFFICIENT_BALANCE',
        namesOperation: true,
        times: 1,
      },
    ]);

    // act
    const refused = await transfer();
    const operationID = String(refused.body.operationID);
    const readBack = await user.call(READ, { operationID });
    const after = await stateOf(user);

    // assess
    expect(refused.status).toBe(422);
    expect(refused.body).toEqual(failedOperation('INSUFFICIENT_BALANCE', 'operationID'));
    expect(operationID).toMatch(/^op_/);
    expect(readBack.status).toBe(200);
    expect(readBack.body).toMatchObject({ operationID, ...failedFields('INSUFFICIENT_BALANCE') });
    expect(after.balance).toBe(before.balance);
    expect(after.transfers).toEqual([]);
  });

  it('by headers on a beneficiary creation: a new job, failed, with Retry-After', async () => {
    // prepare
    const user = await createUser('SANDBOX_BENEFICIARY');

    // act
    const refused = await rawCall(
      user,
      '/v1/payment/beneficiaries/create',
      { sync: true, ...walletBeneficiary() },
      {
        'x-sandbox-fault': 'refusal',
        'x-sandbox-fault-status': '429',
        'x-sandbox-fault-type': 'TOO_MANY_REQUESTS',
        'x-sandbox-retry-after-seconds': '5',
        'x-sandbox-names-operation': 'true',
      },
    );
    const jobID = String(refused.body.jobID);
    const readBack = await user.call(READ, { jobID });
    const listed = await user.call('/v1/payment/beneficiaries/get', { sync: true });

    // assess
    expect(refused.status).toBe(429);
    expect(refused.retryAfter).toBe('5');
    expect(refused.body).toMatchObject({
      jobID: expect.stringMatching(/^job_/),
      ...failedFields('TOO_MANY_REQUESTS'),
    });
    expect(readBack.body).toMatchObject({ jobID, ...failedFields('TOO_MANY_REQUESTS') });
    expect(listed.body.beneficiaries).toEqual([]);
  });

  it('refuses nonsense as BAD_REQUEST, setting or running nothing', async () => {
    // prepare
    const user = await createUser('SANDBOX_BENEFICIARY');
    const refusal = { outcome: 'refusal', status: 429, type: 'TOO_MANY_REQUESTS', namesOperation: true };

    // act
    const onError = await setFaults(user.connectionID, [
      { path: TRANSFER, outcome: 'error', status: 503, namesOperation: true },
    ]);
    const withoutPath = await setFaults(user.connectionID, [refusal]);
    const onMetadata = await setFaults(user.connectionID, [{ ...refusal, path: METADATA }]);
    const notBoolean = await setFaults(user.connectionID, [
      { ...refusal, path: TRANSFER, namesOperation: 'yes' },
    ]);
    const byHeader = await user.call(
      METADATA,
      { sync: true },
      {
        'x-sandbox-fault': 'refusal',
        'x-sandbox-fault-status': '429',
        'x-sandbox-fault-type': 'TOO_MANY_REQUESTS',
        'x-sandbox-names-operation': 'true',
      },
    );
    const unaffected = await user.call(METADATA, { sync: true });

    // assess
    for (const reply of [onError, withoutPath, onMetadata, notBoolean, byHeader]) {
      expect(reply.status).toBe(400);
      expect(reply.body).toEqual(failed('BAD_REQUEST'));
    }
    expect(unaffected.status).toBe(200);
  });
});

/** The fields of a failed envelope of this type. */
function failedFields(type: string) {
  return { success: false, status: 'failed', type, msg: expect.any(String) };
}
