/**
 * What the conformance tests of Dapi's official SDKs share (test/support/{go,php,java,csharp}-sdk.ts;
 * docs/provider-v2.md): a sandbox user as an SDK's caller holds it, a request sent as text on the
 * wire, an answer decoded against a zod schema of an SDK's response type, the statuses and the
 * beneficiary statuses every SDK names, and the wallet every SDK pays. What only Java and C# share
 * (their `DapiApp` and its types) is in test/support/typed-sdk.ts and typed-sdk-types.ts.
 */
import { expect } from 'vitest';
import * as z from 'zod';
import { SandboxUserResponse } from '#shared/sandbox/admin-schemas';
import { appSecret, post, type Reply } from './in-process-sandbox.ts';

export const int = z.number().int();

/** `APIStatus` (Java, C#; Go's status constants): C# throws on any other value, Java reads null. */
export const APIStatus = z.enum(['initialized', 'failed', 'user_input_required', 'done']);
/** `Beneficiary.BeneficiaryStatus` (Go, Java, C#): no `pending`. */
export const BeneficiaryStatus = z.enum([
  'approved',
  'rejected',
  'cancelled',
  'waiting_for_confirmation',
  'modified_for_pending_approval',
]);

export const Currency = z.object({ code: z.string(), name: z.string() });
/** The answer decoded against an SDK's type: the schema's issues name what the SDK would fail on or miss. */
export function decoded<S extends z.ZodType>(schema: S, reply: Reply): z.infer<S> {
  const result = schema.safeParse(reply.body);
  expect(result.error?.issues ?? [], JSON.stringify(reply.body).slice(0, 1500)).toEqual([]);
  return result.data as z.infer<S>;
}

/** A sandbox user, as the caller of an SDK holds it after Connect's login: before the token exchange. */
export interface SdkLogin {
  connectionID: string;
  accessCode: string;
  userSecret: string;
  accountID: string;
  cardID: string;
}

/** A fresh sandbox user at `bankId`. */
export async function sandboxLogin(bankId: string): Promise<SdkLogin> {
  const created = await post('/sandbox/users', { appSecret, bankId });
  if (created.status !== 201) throw new Error(`user not created: ${JSON.stringify(created.body)}`);
  const { connectionID, accessCode, userSecret, accounts, cards } = created.body;
  return { connectionID, accessCode, userSecret, accountID: accounts[0].id, cardID: cards[0].id };
}

/** The transfers the sandbox holds for the user (its administration): what moved, and to whom. */
export async function transfersOf(login: SdkLogin) {
  const reply = await post('/sandbox/users/get', { appSecret, connectionID: login.connectionID });
  return SandboxUserResponse.parse(reply.body).transfers;
}

/** Sends a request as an SDK writes it: `POST <sandbox>/v2<path>`, its headers, its body as text. */
export function sendV2(path: string, body: string, headers: Record<string, string>): Promise<Reply> {
  return post(`/v2${path}`, body, headers);
}

/** The operator's wallet, the receiver every SDK registers or names inline. */
export const wallet = {
  name: 'Acme Wallet LLC',
  iban: 'AE070331234567890123456',
  accountNumber: '1234567890123456',
  swiftCode: 'WALTAEAD',
  bankName: 'Wallet Bank',
  branchName: 'Head Office',
  branchAddress: 'Wallet Street 1 Dubai',
  address: { line1: 'Wallet Street 1', line2: 'Dubai', line3: 'United Arab Emirates' },
} as const;

/** The sandbox's one-time password: the answer to every question its banks ask. */
export const sandboxOtp = '123456';
