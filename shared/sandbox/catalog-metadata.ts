/**
 * How the catalog writes a sandbox bank's metadata: the spec's `accountsMetadata` with the fields
 * every sandbox bank shares, and the settings several banks share (`catalog.ts` lists the banks).
 */
import { type CurrencyCode, currencyObject } from '#shared/money';
import type { AccountsMetadata } from '#shared/provider/interface/schemas';

const uae = { code: 'AE', name: 'United Arab Emirates' };
export const kuwait = { code: 'KW', name: 'Kuwait' };
export const asksNothing = {};
export const otp = ['otp'] as const;

export function metadata(
  {
    swiftCode,
    bankName,
    ...overrides
  }: Partial<AccountsMetadata> & Pick<AccountsMetadata, 'swiftCode' | 'bankName'>,
  currency: CurrencyCode,
  minimums: { same: number; local: number },
): AccountsMetadata {
  return {
    swiftCode,
    sortCode: null,
    bankName,
    branchName: 'Main Branch',
    branchAddress: 'Sandbox Tower, Floor 1',
    address: { line1: 'Sandbox Tower', line2: 'Financial District', line3: 'Dubai' },
    transferBounds: [
      { minimum: minimums.same, currency: currencyObject(currency), type: 'same' },
      { minimum: minimums.local, currency: currencyObject(currency), type: 'local' },
    ],
    beneficiaryCoolDownPeriod: { value: 0, unit: 'hrs' },
    isCreateBeneficiaryEndpointRequired: true,
    willNewlyAddedBeneficiaryExistBeforeCoolDownPeriod: true,
    country: uae,
    transactionRange: { unit: 'days', value: 90 },
    ...overrides,
  };
}

export const aedMinimums = { same: 1, local: 10 };
/** A new beneficiary hidden from the list for 0.001 hours: 3.6 seconds, so demos and tests see a whole cool-down. */
export const quickHiddenCoolDown = {
  beneficiaryCoolDownPeriod: { value: 0.001, unit: 'hrs' },
  willNewlyAddedBeneficiaryExistBeforeCoolDownPeriod: false,
} as const;
