/**
 * Money is integer minor units inside the service. JSON carries decimal numbers in major units (the
 * spec's `amount`, `minimum`, `balance`); these functions are the only crossing between the two.
 */
import * as z from 'zod';

/** ISO 4217 currencies the service knows, with their minor-unit exponent and full name. */
export const currencies = {
  AED: { exponent: 2, name: 'UAE Dirham' },
  SAR: { exponent: 2, name: 'Saudi Riyal' },
  QAR: { exponent: 2, name: 'Qatari Riyal' },
  EGP: { exponent: 2, name: 'Egyptian Pound' },
  USD: { exponent: 2, name: 'US Dollar' },
  EUR: { exponent: 2, name: 'Euro' },
  GBP: { exponent: 2, name: 'Pound Sterling' },
  KWD: { exponent: 3, name: 'Kuwaiti Dinar' },
  BHD: { exponent: 3, name: 'Bahraini Dinar' },
  OMR: { exponent: 3, name: 'Rial Omani' },
  JOD: { exponent: 3, name: 'Jordanian Dinar' },
} as const satisfies Record<string, { exponent: number; name: string }>;

export type CurrencyCode = keyof typeof currencies;

export function isCurrencyCode(code: string): code is CurrencyCode {
  return Object.hasOwn(currencies, code);
}

/**
 * Amounts in minor units by currency code, each a code the service knows (the operator's approval
 * thresholds, read from the configuration).
 */
export const MinorAmountsByCurrency = z
  .record(z.string(), z.int().min(0).max(Number.MAX_SAFE_INTEGER))
  .superRefine((thresholds, context) => {
    for (const code of Object.keys(thresholds)) {
      if (!isCurrencyCode(code))
        context.addIssue({
          code: 'custom',
          path: [code],
          message: `${code} is not a currency the service knows (${Object.keys(currencies).join(', ')})`,
        });
    }
  })
  .transform((thresholds) => thresholds as Partial<Record<CurrencyCode, number>>);
export type MinorAmountsByCurrency = z.infer<typeof MinorAmountsByCurrency>;

export class AmountError extends Error {}

/** Number of decimal places written in the shortest decimal form of `value` (1e-7 has 7). */
function decimalPlaces(value: number): number {
  const [mantissa = '', exponentPart] = value.toString().split('e');
  const fraction = mantissa.split('.')[1]?.length ?? 0;
  const exponent = exponentPart === undefined ? 0 : Number(exponentPart);
  return Math.max(0, fraction - exponent);
}

/**
 * Converts a JSON amount in major units to integer minor units of `currency`. Throws AmountError when
 * the amount is not finite, has more decimals than the currency allows, or does not fit exactly.
 */
export function toMinorUnits(value: number, currency: CurrencyCode): number {
  const { exponent } = currencies[currency];
  if (!Number.isFinite(value)) throw new AmountError('amount must be a finite number');
  if (decimalPlaces(value) > exponent) {
    throw new AmountError(`amount has more than ${exponent} decimals, the most ${currency} allows`);
  }
  const minor = Math.round(value * 10 ** exponent);
  if (!Number.isSafeInteger(minor)) throw new AmountError('amount is too large');
  return minor;
}

/** Converts integer minor units back to the JSON number in major units (exact for safe integers). */
export function fromMinorUnits(minor: number, currency: CurrencyCode): number {
  const { exponent } = currencies[currency];
  if (!Number.isSafeInteger(minor)) throw new AmountError('minor units must be a safe integer');
  // Division of an integer by a power of ten yields the double nearest the decimal, whose shortest
  // form is that decimal, so 1234567 / 100 prints as 12345.67.
  return minor / 10 ** exponent;
}

export function currencyObject(code: CurrencyCode): { code: CurrencyCode; name: string } {
  return { code, name: currencies[code].name };
}
