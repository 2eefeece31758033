/**
 * What the sandbox's user-input files share: the one-time password and its question, two paths, a
 * failed operation's envelope, a user of the OTP bank with its beneficiary, a transfer asked and
 * answered, the user's state.
 */
import { expect } from 'vitest';
import { SandboxUserResponse } from '#shared/sandbox/admin-schemas';
import {
  createUser,
  eventually,
  type Reply,
  type TestUser,
  walletBeneficiary,
} from './in-process-sandbox.ts';

/** The sandbox's documented one-time password. */
export const OTP = '123456';

export const TRANSFER = '/v1/payment/transfer/create';
export const BENEFICIARY_CREATE = '/v1/payment/beneficiaries/create';

/** The OTP question as the bank asks it: one input, not yet answered. */
export const otpQuestion = {
  id: 'otp',
  index: 0,
  query: expect.stringMatching(/\S/),
  answer: '',
};

/** The inputs of a `user_input_required` reply with the OTP input answered. */
export function answered(reply: Reply, answer: string) {
  const inputs = reply.body.userInputs as Record<string, unknown>[] | undefined;
  if (!inputs?.length) throw new Error(`no user input asked: ${reply.status} ${JSON.stringify(reply.body)}`);
  return inputs.map((input) => (input.id === 'otp' ? { ...input, answer } : input));
}

/** A failed envelope that carries the id of the operation it ended. */
export const failedOperation = (type: string, idField: 'jobID' | 'operationID', id: string) =>
  expect.objectContaining({ success: false, status: 'failed', type, msg: expect.any(String), [idField]: id });

/** Creates the wallet beneficiary on an OTP bank (question, then answer) and returns its id. */
export async function givenBeneficiary(user: TestUser): Promise<string> {
  const asked = await user.call(BENEFICIARY_CREATE, { sync: true, ...walletBeneficiary() });
  const done = await user.call(BENEFICIARY_CREATE, {
    sync: true,
    ...walletBeneficiary(),
    jobID: asked.body.jobID,
    userInputs: answered(asked, OTP),
  });
  if (done.status !== 200 || done.body.status !== 'done') {
    throw new Error(`beneficiary not created: ${done.status} ${JSON.stringify(done.body)}`);
  }
  // The list gives its id (the creation's reference is a receipt number); this bank lists freely.
  const listed = await user.call('/v1/payment/beneficiaries/get', { sync: true });
  return listed.body.beneficiaries[0].id;
}

/** A user of the OTP bank with the wallet beneficiary, ready to transfer. */
export async function givenOtpUser(options: { inputTtlSeconds?: number } = {}) {
  const user = await createUser('SANDBOX_OTP', options);
  const receiverID = await givenBeneficiary(user);
  const fields = { sync: true, amount: 250, senderID: user.accountId, receiverID };
  return { user, fields, receiverID };
}

/** Starts a transfer and returns the reply asking for the OTP, failing loudly otherwise. */
export async function askedTransfer(user: TestUser, fields: Record<string, unknown>): Promise<Reply> {
  const reply = await user.call(TRANSFER, fields);
  if (reply.status !== 200 || reply.body.status !== 'user_input_required') {
    throw new Error(`transfer did not ask for input: ${reply.status} ${JSON.stringify(reply.body)}`);
  }
  return reply;
}

export const answerTransfer = (
  user: TestUser,
  fields: Record<string, unknown>,
  asked: Reply,
  answer: string,
) =>
  user.call(TRANSFER, {
    ...fields,
    operationID: asked.body.operationID,
    userInputs: answered(asked, answer),
  });

export const metadata = (user: TestUser) => user.call('/v1/metadata/accounts/get', { sync: true });

export async function stateOf(user: TestUser) {
  const state = SandboxUserResponse.parse(await user.state());
  const [account] = state.accounts;
  if (!account) throw new Error('user has no account');
  return { balance: account.balance, transfers: state.transfers };
}

/** Repeats `call` (polling, no fixed sleep) until it answers `done`, and returns that reply. */
export function eventuallyDone(call: () => Promise<Reply>, timeoutMs: number): Promise<Reply> {
  return eventually(async () => {
    const reply = await call();
    return reply.body.status === 'done' ? reply : undefined;
  }, timeoutMs);
}
