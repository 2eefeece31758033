/**
 * What the sandbox catalog's unit files share: each bank's currency and opening balance, and the
 * catalog itself.
 */
import { SandboxBanksResponse } from '#shared/provider/interface/responses';
import type { AccountsMetadata } from '#shared/provider/interface/schemas';
import { request } from './in-process-sandbox.ts';

export const bankIds = [
  'SANDBOX_BENEFICIARY',
  'SANDBOX_FIRST_DETAILS',
  'SANDBOX_NO_BENEFICIARY',
  'SANDBOX_COOLDOWN',
  'SANDBOX_COOLDOWN_FAST',
  'SANDBOX_OTP',
  'SANDBOX_COOLDOWN_LISTED',
  'SANDBOX_OTP_READS',
  'SANDBOX_COOLDOWN_OTP_LIST',
  'SANDBOX_OTP_INLINE',
  'SANDBOX_OTP_TWO_QUESTIONS',
  'SANDBOX_RECEIPT_REFERENCE',
  'SANDBOX_SPARSE',
  'SANDBOX_KWD',
  'SANDBOX_MASKED',
  'SANDBOX_RATE_LIMITED',
];

/** Each bank's currency and the opening balance of a new user's account, in major units. */
export const expectedAccount = (bankId: string) =>
  bankId === 'SANDBOX_KWD' ? { currency: 'KWD', balance: 1_000 } : { currency: 'AED', balance: 100_000 };

export async function catalog(): Promise<Map<string, AccountsMetadata>> {
  const reply = await request('GET', '/sandbox/banks');
  if (reply.status !== 200) throw new Error(`no catalog: ${JSON.stringify(reply.body)}`);
  const { banks } = SandboxBanksResponse.parse(reply.body);
  return new Map(banks.map(({ bankId, accountsMetadata }) => [bankId, accountsMetadata]));
}
