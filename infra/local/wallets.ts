/** The wallet accounts of the local stack: one per sandbox currency (`WALLET_ACCOUNTS` overrides). */
import type { WalletAccountConfig } from '#shared/config';

export const localWallets: WalletAccountConfig[] = [
  {
    id: 'wallet-aed',
    currency: 'AED',
    name: 'Acme Wallet LLC',
    iban: 'AE070331234567890123456',
    accountNumber: '0331234567890123456',
    swiftCode: 'WALTAEAD',
    bankName: 'Wallet Bank',
    country: 'United Arab Emirates',
    countryCode: 'AE',
    branchName: 'Head Office',
    branchAddress: 'Wallet Street 1, Dubai',
    address: { line1: 'Wallet Street 1', line2: 'Downtown', line3: 'Dubai' },
  },
  {
    id: 'wallet-kwd',
    currency: 'KWD',
    name: 'Acme Wallet LLC',
    iban: 'KW81CBKU0000000000001234560101',
    accountNumber: '1234560101',
    swiftCode: 'WALTKWKW',
    bankName: 'Wallet Bank Kuwait',
    country: 'Kuwait',
    countryCode: 'KW',
    branchName: 'Sharq',
    branchAddress: 'Wallet Tower, Sharq, Kuwait City',
    address: { line1: 'Wallet Tower', line2: 'Sharq', line3: 'Kuwait City' },
  },
];
