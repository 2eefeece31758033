/**
 * What the sandbox's authentication files share: a user whose access code is not exchanged yet, a
 * new application's secret, every provider endpoint with a well-formed body.
 */
import { expect } from 'vitest';
import { CreateApplicationResponse } from '#shared/sandbox/admin-schemas';
import { appSecret, post, type TestUser, walletBeneficiary, walletInline } from './in-process-sandbox.ts';

export const unauthorized = {
  success: false,
  status: 'failed',
  type: 'UNAUTHORIZED',
  msg: 'Invalid access token',
  requestId: expect.any(String),
};

/** A user created over HTTP whose access code has not been exchanged yet. */
export async function newConnection(bankId = 'SANDBOX_BENEFICIARY', settings: Record<string, unknown> = {}) {
  const created = await post('/sandbox/users', { appSecret, bankId, ...settings });
  if (created.status !== 201) throw new Error(`user not created: ${JSON.stringify(created.body)}`);
  const { connectionID, accessCode, userSecret } = created.body as Record<string, string>;
  return { connectionID: connectionID ?? '', accessCode: accessCode ?? '', userSecret: userSecret ?? '' };
}

export const exchange = (body: Record<string, unknown>) => post('/v1/auth/ExchangeToken', body);

/** A new application's secret (POST /sandbox/applications). */
export async function newApplication(): Promise<string> {
  const created = await post('/sandbox/applications', {});
  if (created.status !== 201) throw new Error(`application not created: ${JSON.stringify(created.body)}`);
  return CreateApplicationResponse.parse(created.body).appSecret;
}

/** Every provider endpoint with a well-formed body (secrets added by the caller). */
export const endpoints: { path: string; body: (user: TestUser) => Record<string, unknown> }[] = [
  { path: '/v1/metadata/accounts/get', body: () => ({ sync: true }) },
  { path: '/v1/payment/beneficiaries/get', body: () => ({ sync: true }) },
  { path: '/v1/payment/beneficiaries/create', body: () => ({ sync: true, ...walletBeneficiary() }) },
  {
    path: '/v1/payment/transfer/create',
    body: (user) => ({ sync: true, amount: 10, senderID: user.accountId, receiverID: 'ben_unknown' }),
  },
  {
    path: '/v1/payment/transfer/autoflow',
    body: (user) => ({
      amount: 10,
      senderID: user.accountId,
      action: 'deposit',
      beneficiary: walletInline(),
    }),
  },
  { path: '/v2/data/balance/get', body: (user) => ({ sync: true, cardID: user.cardId }) },
  { path: '/v2/operation/get', body: () => ({ operationID: 'op_unknown' }) },
  { path: '/v1/operation/get', body: () => ({ operationID: 'op_unknown' }) },
];
