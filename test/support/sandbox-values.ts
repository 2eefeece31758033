/**
 * The values the sandbox's tests share, over HTTP (`sandbox.ts`) or in process (`in-process-sandbox.ts`):
 * the wallet account as a beneficiary and as an inline receiver, the failed envelopes, valid IBANs.
 */
import { expect } from 'vitest';

/** An IBAN of the operator's wallet account at another bank (valid check digits). */
export const walletIban = 'AE070331234567890123456';

/** The wallet account as a beneficiary to create (scenario 1 and 2 banks). */
export function walletBeneficiary(overrides: Record<string, unknown> = {}) {
  return {
    type: 'local',
    name: 'Acme Wallet LLC',
    iban: walletIban,
    accountNumber: '1234567890123456',
    swiftCode: 'WALTAEAD',
    sortCode: '',
    bankName: 'Wallet Bank',
    country: 'United Arab Emirates',
    branchName: 'Head Office',
    branchAddress: 'Wallet Street 1, Dubai',
    address: { line1: 'Wallet Street 1', line2: 'Downtown', line3: 'Dubai' },
    ...overrides,
  };
}

/** The wallet account as an inline receiver (scenario 3 and scenario 2's first transfer). */
export function walletInline(overrides: Record<string, unknown> = {}) {
  const { type: _type, ...fields } = walletBeneficiary();
  return { ...fields, country: 'AE', ...overrides };
}

/** Matches the spec's failed envelope with this type (and any extra fields, such as the operation id). */
export function failed(type: string) {
  return expect.objectContaining({ success: false, status: 'failed', type, msg: expect.any(String) });
}

/** The failed envelope of a recorded operation: `failed(type)` plus the operation's id. */
export function failedOperation(type: string, idField: 'jobID' | 'operationID') {
  return expect.objectContaining({
    success: false,
    status: 'failed',
    type,
    msg: expect.any(String),
    [idField]: expect.stringMatching(/\S/),
  });
}

/** A valid IBAN (ISO 13616 check digits computed) for a country and basic bank account number. */
export function ibanFor(country: string, bban: string): string {
  const digits = [...`${bban}${country}00`]
    .map((char) => (/\d/.test(char) ? char : String(char.charCodeAt(0) - 55)))
    .join('');
  let remainder = 0;
  for (const digit of digits) remainder = (remainder * 10 + Number(digit)) % 97;
  return `${country}${String(98 - remainder).padStart(2, '0')}${bban}`;
}
