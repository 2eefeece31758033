/** Wallet accounts (the receiving accounts) from configuration, in the two shapes the spec uses. */
import type { WalletAccountConfig } from '#shared/config';
import { isCurrencyCode, toMinorUnits } from '#shared/money';
import type { Deposit, WalletAccount } from './deposit.ts';

/** The configured wallet accounts, by id. */
export interface Wallets {
  find(id: string): WalletAccount | undefined;
  readonly defaultId: string;
}

/** The largest deposit a wallet account takes when its configuration names none, in its currency. */
export const DEFAULT_MAX_DEPOSIT = 100_000;

export function walletAccounts(configs: WalletAccountConfig[]): WalletAccount[] {
  return configs.map((config) => {
    if (!isCurrencyCode(config.currency))
      throw new Error(`wallet ${config.id}: unknown currency ${config.currency}`);
    // The list of a user's beneficiaries is matched on it: without it, a name alone would do.
    if (accountKey(config.accountNumber) === '')
      throw new Error(`wallet ${config.id}: an account number is required`);
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
      maxDepositMinor: toMinorUnits(config.maxDeposit ?? DEFAULT_MAX_DEPOSIT, config.currency),
    };
  });
}

/** An account number as banks compare it: no spaces or dashes, upper case. */
export function accountKey(accountNumber: string): string {
  return accountNumber.replace(/[\s-]/g, '').toUpperCase();
}

/**
 * Whether a beneficiary the bank lists is the wallet account: by its account identifiers, never by
 * name. The list's `accountNumber` is compared with the wallet's account number and with its IBAN
 * (a bank may list either there).
 */
export function isWalletAccount(wallet: WalletAccount, listed: { accountNumber: string }): boolean {
  const key = accountKey(listed.accountNumber);
  if (key === '') return false;
  return key === accountKey(wallet.beneficiary.accountNumber) || key === accountKey(wallet.beneficiary.iban);
}

/** The wallet accounts by id, and the one a deposit goes to when its request names none. */
export function walletBook(accounts: WalletAccount[], defaultId: string): Wallets {
  const byId = new Map(accounts.map((wallet) => [wallet.id, wallet]));
  if (!byId.has(defaultId)) throw new Error(`the default wallet account ${defaultId} is not configured`);
  return { find: (id) => byId.get(id), defaultId };
}

/** The wallet account a deposit goes to; it must still be configured. */
export function walletOf(wallets: Wallets, deposit: Pick<Deposit, 'walletAccountId'>): WalletAccount {
  const wallet = wallets.find(deposit.walletAccountId);
  if (!wallet) throw new Error(`wallet account ${deposit.walletAccountId} is no longer configured`);
  return wallet;
}
