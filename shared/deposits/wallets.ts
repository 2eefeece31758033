/** Wallet accounts (the receiving accounts) from configuration, in the two shapes the spec uses. */
import type { WalletAccountConfig } from '#shared/config';
import { isCurrencyCode } from '#shared/money';
import type { WalletAccount } from './model.ts';

export function walletAccounts(configs: WalletAccountConfig[]): WalletAccount[] {
  return configs.map((config) => {
    if (!isCurrencyCode(config.currency))
      throw new Error(`wallet ${config.id}: unknown currency ${config.currency}`);
    const address = config.address ?? { line1: config.branchAddress, line2: '', line3: '' };
    const fields = {
      swiftCode: config.swiftCode,
      sortCode: '',
      bankName: config.bankName,
      name: config.name,
      iban: config.iban,
      accountNumber: config.accountNumber,
      branchName: config.branchName,
      branchAddress: config.branchAddress,
      address,
    };
    return {
      id: config.id,
      currency: config.currency,
      beneficiary: { type: 'local', ...fields, country: config.country },
      inline: { ...fields, country: config.countryCode },
    };
  });
}
