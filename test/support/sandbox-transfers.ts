/**
 * What the sandbox's transfer files share: IBANs that are not the wallet's, a failed operation's
 * envelope, a transfer and an inline transfer of a user.
 */
import { expect } from 'vitest';
import { ibanFor, type TestUser, walletInline } from './in-process-sandbox.ts';

/** An account at the sandbox bank itself (SWIFT SBXBAEAD), not the wallet's. */
export const sameBankIban = ibanFor('AE', '0441111222233334444');
/** Some other valid IBAN, neither the wallet's nor the same bank's. */
export const strangerIban = ibanFor('AE', '0269999888877776666');

/** The failed envelope of a recorded operation: `failed(type)` plus the operation's id. */
export const failedOperation = (type: string) =>
  expect.objectContaining({
    success: false,
    status: 'failed',
    type,
    msg: expect.any(String),
    operationID: expect.stringMatching(/\S/),
  });

export const transfer = (user: TestUser, fields: Record<string, unknown>) =>
  user.call('/v1/payment/transfer/create', { sync: true, senderID: user.accountId, ...fields });

export const autoflow = (user: TestUser, fields: Record<string, unknown>) =>
  user.call('/v1/payment/transfer/autoflow', {
    senderID: user.accountId,
    action: 'transfer',
    beneficiary: walletInline(),
    ...fields,
  });
