/**
 * Decoys at a bank that lists accounts masked (`SANDBOX_MASKED`: `****` and the last four characters):
 * before a user's deposits run, the harness registers another beneficiary for the user, of another
 * account, whose masked form ends as the wallet's does, under the wallet's own name. Listed, it looks
 * like the wallet's; the orchestrator must never take it for it (only the one new entry after its own
 * creation is ours, `beneficiary-match.ts`), and never pay it (the audit reads every transfer's receiver).
 *
 *   account-number  another account number, the wallet's last four characters (and its IBAN another)
 *   iban            no account number (the list masks its IBAN), an IBAN ending as the wallet's
 */
import { composeIBAN } from 'ibantools';
import type { WalletAccountConfig } from '#shared/config';

export const decoyKinds = ['account-number', 'iban'] as const;
export type DecoyKind = (typeof decoyKinds)[number];

/** The beneficiary a decoy registers beside the wallet's, as the provider's creation takes it. */
export function decoyBeneficiary(kind: DecoyKind, wallet: WalletAccountConfig) {
  const shift = kind === 'account-number' ? 5 : 3;
  const bban = wallet.iban.replace(/\s/g, '').slice(4);
  // Another account: every digit but the bank's code (the first three) and the last four moved on.
  const iban = composeIBAN({
    countryCode: wallet.iban.slice(0, 2),
    bban: `${bban.slice(0, 3)}${shifted(bban.slice(3, -4), shift)}${bban.slice(-4)}`,
  });
  if (!iban) throw new Error(`no decoy IBAN for the wallet ${wallet.id}`);
  const accountNumber = wallet.accountNumber.replace(/[\s-]/g, '');
  return {
    type: 'local',
    name: wallet.name,
    iban,
    accountNumber:
      kind === 'account-number'
        ? `${shifted(accountNumber.slice(0, -4), shift)}${accountNumber.slice(-4)}`
        : '',
    swiftCode: wallet.swiftCode,
    sortCode: '',
    bankName: wallet.bankName,
    country: wallet.country,
    branchName: wallet.branchName,
    branchAddress: wallet.branchAddress,
  };
}

/** Each digit moved on by `by` (mod 10), anything else kept: the same format, another number. */
function shifted(text: string, by: number): string {
  return text.replace(/\d/g, (digit) => String((Number(digit) + by) % 10));
}
