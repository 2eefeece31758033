/**
 * What the sandbox's validation files share: the exact BAD_REQUEST envelope naming a field, a raw
 * request, a user's bearer and secrets, every provider endpoint with a valid body, its required
 * field and its ill-typed ones.
 */
import { expect } from 'vitest';
import {
  appSecret,
  rawRequest,
  type TestUser,
  walletBeneficiary,
  walletInline,
} from './in-process-sandbox.ts';

/** The exact BAD_REQUEST envelope, with a `details` entry naming `field` (`body` for the whole body). */
export function badRequestNaming(field: string) {
  const escaped = field.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return {
    success: false,
    status: 'failed',
    type: 'BAD_REQUEST',
    msg: 'Invalid JSON request',
    requestId: expect.any(String),
    details: expect.arrayContaining([expect.stringMatching(new RegExp(`^${escaped}(:| is )`))]),
  };
}

/** Any method, any body (GET included), any headers; the raw status and text of the answer. */
export async function raw(
  method: string,
  path: string,
  body: string | undefined,
  headers: Record<string, string> = {},
): Promise<{ status: number; text: string }> {
  const { status, text } = await rawRequest(method, path, body, {
    'content-type': 'application/json',
    ...headers,
  });
  return { status, text };
}

export const bearer = (user: TestUser) => ({ authorization: `Bearer ${user.accessToken}` });
export const secretsOf = (user: TestUser) => ({ appSecret, userSecret: user.userSecret });

export interface EndpointCase {
  path: string;
  valid: (user: TestUser) => Record<string, unknown>;
  missing: string;
  illTyped: { field: string; value: unknown }[];
}

export const endpoints: EndpointCase[] = [
  {
    path: '/v1/metadata/accounts/get',
    valid: () => ({ sync: true }),
    missing: 'sync',
    illTyped: [{ field: 'sync', value: 'yes' }],
  },
  {
    path: '/v1/payment/beneficiaries/get',
    valid: () => ({ sync: true }),
    missing: 'sync',
    illTyped: [{ field: 'sync', value: 'yes' }],
  },
  {
    path: '/v1/payment/beneficiaries/create',
    valid: () => ({ sync: true, ...walletBeneficiary() }),
    missing: 'iban',
    illTyped: [
      { field: 'sync', value: 'yes' },
      { field: 'name', value: 42 },
      { field: 'address', value: 'Wallet Street 1' },
    ],
  },
  {
    path: '/v1/payment/transfer/create',
    valid: (user) => ({ sync: true, amount: 10, senderID: user.accountId, receiverID: 'ben_unknown' }),
    missing: 'senderID',
    illTyped: [
      { field: 'amount', value: '10' },
      { field: 'sync', value: 'yes' },
      { field: 'receiverID', value: 7 },
    ],
  },
  {
    path: '/v1/payment/transfer/autoflow',
    valid: (user) => ({
      amount: 10,
      senderID: user.accountId,
      action: 'deposit',
      beneficiary: walletInline(),
    }),
    missing: 'action',
    illTyped: [
      { field: 'amount', value: '10' },
      { field: 'beneficiary', value: 'Acme Wallet LLC' },
    ],
  },
  {
    path: '/v2/data/balance/get',
    valid: (user) => ({ sync: true, cardID: user.cardId }),
    missing: 'cardID',
    illTyped: [
      { field: 'cardID', value: 42 },
      { field: 'sync', value: 'yes' },
    ],
  },
  {
    path: '/v2/operation/get',
    valid: () => ({ operationID: 'op_unknown' }),
    missing: 'operationID',
    illTyped: [{ field: 'operationID', value: 42 }],
  },
  {
    path: '/v1/operation/get',
    valid: () => ({ operationID: 'op_unknown' }),
    missing: 'operationID',
    illTyped: [{ field: 'operationID', value: 42 }],
  },
];
