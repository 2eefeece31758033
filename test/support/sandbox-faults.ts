/**
 * What the sandbox's fault files share: two paths, a failed envelope, a user about to transfer with
 * its state, a failed operation's `opInfo`.
 */
import { expect } from 'vitest';
import { createBeneficiary } from '#shared/sandbox/operations/beneficiaries';
import { createTransfer } from '#shared/sandbox/operations/transfers';
import { givenSandbox, walletBeneficiary } from './given-sandbox.ts';

export const TRANSFER = '/v1/payment/transfer/create';
export const METADATA = '/v1/metadata/accounts/get';

export const failed = (type: string) =>
  expect.objectContaining({ success: false, status: 'failed', type, msg: expect.any(String) });

/** A user of the beneficiary bank with the wallet beneficiary, and a transfer of 40 AED to it. */
export async function givenTransferringUser() {
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
export const failedInfo = (body: Record<string, unknown>) =>
  expect.objectContaining({ status: 'failed', errorType: body.type });
