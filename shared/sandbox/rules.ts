/**
 * The bank rules of the sandbox, as pure functions: which bank a connection is at, the transfer type a
 * receiver's SWIFT code implies, the bank's minimum per currency and type, the balance check, IBANs and
 * amounts in minor units. A broken rule is a `ProviderError` with the spec's type.
 */
import { isValidIban, normalizeIban } from '#shared/iban';
import { AmountError, type CurrencyCode, toMinorUnits } from '#shared/money';
import { badRequest, ProviderError } from '#shared/provider/interface/errors';
import { findBank, type SandboxBank } from './catalog.ts';

export type TransferType = 'same' | 'local';

/** The bank of a connection; a connection naming no bank of the catalog is a bug, not a refusal. */
export function bankOf(connection: { id: string; bankId: string }): SandboxBank {
  const bank = findBank(connection.bankId);
  if (!bank) throw new Error(`connection ${connection.id} names unknown bank ${connection.bankId}`);
  return bank;
}

/** `same` when the receiver's SWIFT code names the sender's bank (the first eight characters), else `local`. */
export function transferType(bank: SandboxBank, swiftCode: string): TransferType {
  const bankCode = (code: string) => code.trim().toUpperCase().slice(0, 8);
  return bankCode(swiftCode) === bankCode(bank.accountsMetadata.swiftCode) ? 'same' : 'local';
}

/** AMOUNT_BELOW_MINIMUM when the bank's bound for this currency and type is above the amount. */
export function checkMinimum(
  bank: SandboxBank,
  currency: CurrencyCode,
  type: TransferType,
  amountMinor: number,
): void {
  const bound = bank.accountsMetadata.transferBounds.find(
    (candidate) => candidate.currency.code === currency && candidate.type === type,
  );
  if (bound && amountMinor < toMinorUnits(bound.minimum, currency)) {
    throw new ProviderError(
      'AMOUNT_BELOW_MINIMUM',
      `The minimum for a ${type} transfer is ${bound.minimum} ${currency}`,
    );
  }
}

/** INSUFFICIENT_BALANCE when the amount is more than the account holds. */
export function checkBalance(amountMinor: number, balanceMinor: number): void {
  if (amountMinor > balanceMinor) throw new ProviderError('INSUFFICIENT_BALANCE');
}

/** A JSON amount in minor units of `currency`; BAD_REQUEST naming `field` when it cannot be exact. */
export function minorUnits(value: number, currency: CurrencyCode, field: string): number {
  try {
    return toMinorUnits(value, currency);
  } catch (error) {
    if (error instanceof AmountError) throw badRequest([`${field}: ${error.message}`]);
    throw error;
  }
}

/** The IBAN in its normalised form; INVALID_IBAN when its check digits are wrong. */
export function validIban(iban: string): string {
  if (!isValidIban(iban)) throw new ProviderError('INVALID_IBAN');
  return normalizeIban(iban);
}
