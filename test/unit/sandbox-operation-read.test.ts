/**
 * The operation read, `POST /v2/operation/get` (and its alias, `/v1/operation/get`): what it
 * answers for each operation and each caller. In process: the sandbox's routes composed as their
 * handlers are, over its in-memory fake store (the sanctioned stand-in for its table) and a manual
 * clock (`test/support/in-process-sandbox.ts`).
 */
import { describe, expect, it } from 'vitest';
import { OperationResponse } from '#shared/provider/interface/responses';
import { createUser, failed } from '../support/in-process-sandbox.ts';
import { getOperation, metadata, read } from '../support/sandbox-async-operations.ts';

describe('POST /v2/operation/get', () => {
  it('/v1/operation/get is an alias: the same answer for the same operation, done or refused', async () => {
    // prepare
    const user = await createUser('SANDBOX_BENEFICIARY');
    const meta = await metadata(user, true);
    const asOperation = { operationID: 'op_unknown' };

    // act
    const [v2, v1] = [
      await read(user, '/v2/operation/get', { jobID: meta.body.jobID }),
      await read(user, '/v1/operation/get', { jobID: meta.body.jobID }),
    ];
    const [unknownV2, unknownV1] = [
      await read(user, '/v2/operation/get', asOperation),
      await read(user, '/v1/operation/get', asOperation),
    ];

    // assess
    expect(v2.status).toBe(200);
    expect(v2.body).toEqual(meta.body);
    expect(v1).toEqual(v2);
    expect(unknownV2.body).toEqual(failed('INVALID_OPERATION_ID'));
    expect(unknownV1.status).toBe(unknownV2.status);
    expect(unknownV1.body).toEqual(failed('INVALID_OPERATION_ID'));
  });

  it('reads back an operation sent with sync: true, done or failed, as it was answered', async () => {
    // prepare
    const user = await createUser('SANDBOX_BENEFICIARY');
    const meta = await metadata(user, true);
    const refused = await user.call('/v1/payment/transfer/create', {
      sync: true,
      amount: 20,
      senderID: user.accountId,
      receiverID: 'ben_unknown',
    });

    // act
    const metaBack = await getOperation(user, { jobID: meta.body.jobID });
    const refusedBack = await getOperation(user, { operationID: refused.body.operationID });

    // assess
    expect(meta.body.status).toBe('done');
    expect(metaBack.status).toBe(200);
    expect(metaBack.body).toEqual(meta.body);
    expect(OperationResponse.parse(metaBack.body).accountsMetadata).toBeDefined();
    expect(refused.body).toEqual(
      expect.objectContaining({ type: 'INVALID_BENEFICIARY_ID', operationID: expect.any(String) }),
    );
    // The same envelope, read back by another request (whose id it does not carry).
    const { requestId: _requestId, ...answered } = refused.body;
    expect(refusedBack.body).toEqual(answered);
  });

  it('refuses an unknown id, and the id of another user, with INVALID_OPERATION_ID', async () => {
    // prepare
    const owner = await createUser('SANDBOX_BENEFICIARY');
    const stranger = await createUser('SANDBOX_BENEFICIARY');
    const meta = await metadata(owner, true);

    // act
    const unknown = await getOperation(owner, { jobID: 'job_01J0000000000000000000000' });
    const unknownOp = await getOperation(owner, { operationID: 'op_unknown' });
    const foreign = await getOperation(stranger, { jobID: meta.body.jobID });
    const own = await getOperation(owner, { jobID: meta.body.jobID });

    // assess
    for (const reply of [unknown, unknownOp, foreign]) {
      expect(reply.status).toBe(404);
      expect(reply.body).toEqual(failed('INVALID_OPERATION_ID'));
    }
    expect(own.body).toEqual(meta.body);
  });

  it('refuses an id given under the other field name (jobID for a transfer, operationID for metadata)', async () => {
    // prepare
    const user = await createUser('SANDBOX_BENEFICIARY');
    const meta = await metadata(user, true);
    const transfer = await user.call('/v1/payment/transfer/create', {
      sync: true,
      amount: 20,
      senderID: user.accountId,
      receiverID: 'ben_unknown',
    });

    // act
    const transferAsJob = await getOperation(user, { jobID: transfer.body.operationID });
    const metaAsOperation = await getOperation(user, { operationID: meta.body.jobID });

    // assess
    expect(transfer.body.operationID).toEqual(expect.stringMatching(/\S/));
    expect(transferAsJob.status).toBe(404);
    expect(transferAsJob.body).toEqual(failed('INVALID_OPERATION_ID'));
    expect(metaAsOperation.status).toBe(404);
    expect(metaAsOperation.body).toEqual(failed('INVALID_OPERATION_ID'));
  });

  it('requires exactly one of operationID and jobID (BAD_REQUEST)', async () => {
    // prepare
    const user = await createUser('SANDBOX_BENEFICIARY');
    const meta = await metadata(user, true);

    // act
    const both = await getOperation(user, { jobID: meta.body.jobID, operationID: meta.body.jobID });
    const neither = await getOperation(user, {});

    // assess
    expect(both.status).toBe(400);
    expect(both.body).toEqual(failed('BAD_REQUEST'));
    expect(neither.status).toBe(400);
    expect(neither.body).toEqual(failed('BAD_REQUEST'));
  });
});
