/**
 * What the sandbox's fault-control files share: two paths, a user about to transfer, the per-user
 * rules set, a call timed on the sandbox's clock.
 */
import { appSecret, clock, createUser, givenBeneficiary, post, type Reply } from './in-process-sandbox.ts';
export const TRANSFER = '/v1/payment/transfer/create';
export const METADATA = '/v1/metadata/accounts/get';

/** A user of the beneficiary bank with the wallet beneficiary, and a transfer of 40 AED to it. */
export async function givenTransferringUser() {
  const user = await createUser('SANDBOX_BENEFICIARY');
  const receiverID = await givenBeneficiary(user);
  const transfer = (headers: Record<string, string> = {}) =>
    user.call(TRANSFER, { sync: true, amount: 40, senderID: user.accountId, receiverID }, headers);
  return { user, transfer };
}

export const setFaults = (connectionID: string, faults: unknown[], secret = appSecret) =>
  post('/sandbox/faults', { appSecret: secret, connectionID, faults });

/** Runs `call` and measures how long the answer took, on the sandbox's clock. */
export async function timed(call: () => Promise<Reply>): Promise<{ reply: Reply; elapsedMs: number }> {
  const started = clock.now();
  const reply = await call();
  return { reply, elapsedMs: clock.now() - started };
}
