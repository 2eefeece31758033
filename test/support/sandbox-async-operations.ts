/**
 * What the sandbox's asynchronous-operation files share: reading an operation back, its `opInfo`
 * checked and set aside.
 */
import { expect } from 'vitest';
import { eventually, type Reply, type TestUser } from './in-process-sandbox.ts';

export const OTP = '123456';

export type OperationId = { jobID: string } | { operationID: string };

/**
 * An operation read, its `opInfo` (the dapi-v2 dialect's, on this path both dialects share) checked
 * against the spec's fields beside it and then set aside: the rest is the spec's answer as before.
 */
export async function read(user: TestUser, path: string, id: Record<string, unknown>): Promise<Reply> {
  const reply = await user.call(path, id);
  if (reply.body.success === false && reply.body.opInfo === undefined) return reply;
  const { opInfo, ...body } = reply.body;
  expect(opInfo).toMatchObject({ status: body.status, type: expect.stringMatching(/^\//) });
  if (body.status === 'failed') expect(opInfo.errorType).toBe(body.type);
  return { ...reply, body };
}

export const getOperation = (user: TestUser, id: Record<string, unknown>) =>
  read(user, '/v2/operation/get', id);

/** Polls `/v2/operation/get` until the operation is no longer `initialized`, and returns that answer. */
export function settled(user: TestUser, id: OperationId): Promise<Reply> {
  return eventually(async () => {
    const reply = await getOperation(user, id);
    return reply.body.status === 'initialized' ? undefined : reply;
  }, 5_000);
}

export const initialized = (id: OperationId) => ({ ...id, success: true, status: 'initialized' });

export const metadata = (user: TestUser, sync = true) => user.call('/v1/metadata/accounts/get', { sync });
