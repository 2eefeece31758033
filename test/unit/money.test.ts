import { describe, expect, it } from 'vitest';
import { AmountError, fromMinorUnits, toMinorUnits } from '#shared/money';

describe('toMinorUnits', () => {
  it.each([
    [10, 'AED', 1000],
    [10.1, 'AED', 1010],
    [0.29, 'AED', 29],
    [1.005, 'KWD', 1005],
    [123456.78, 'AED', 12_345_678],
    [0.001, 'KWD', 1],
    [0, 'AED', 0],
  ] as const)('%d %s is %d minor units', (amount, currency, minor) => {
    expect(toMinorUnits(amount, currency)).toBe(minor);
  });

  it.each([
    [10.123, 'AED'],
    [0.001, 'AED'],
    [1.2345, 'KWD'],
    [1e-7, 'KWD'],
  ] as const)('rejects %d %s: more decimals than the currency allows', (amount, currency) => {
    expect(() => toMinorUnits(amount, currency)).toThrow(AmountError);
  });

  it('rejects what cannot be exact', () => {
    expect(() => toMinorUnits(Number.NaN, 'AED')).toThrow(AmountError);
    expect(() => toMinorUnits(Number.POSITIVE_INFINITY, 'AED')).toThrow(AmountError);
    expect(() => toMinorUnits(1e20, 'AED')).toThrow(AmountError);
  });

  it('is exact where binary floating point is not', () => {
    // 0.1 + 0.2 is 0.30000000000000004 as a double: it has more decimals than AED allows.
    expect(() => toMinorUnits(0.1 + 0.2, 'AED')).toThrow(AmountError);
    expect(toMinorUnits(0.1, 'AED') + toMinorUnits(0.2, 'AED')).toBe(toMinorUnits(0.3, 'AED'));
  });
});

describe('fromMinorUnits', () => {
  it('round-trips every amount of two and three decimals exactly', () => {
    // One assertion over the mismatches: 57,000 amounts, each in two currencies.
    const mismatches: string[] = [];
    for (let minor = 0; minor < 200_000; minor += 7) {
      for (const currency of ['AED', 'KWD'] as const) {
        const back = toMinorUnits(fromMinorUnits(minor, currency), currency);
        if (back !== minor) mismatches.push(`${minor} ${currency} came back ${back}`);
      }
    }
    expect(mismatches).toEqual([]);
  });

  it('prints the decimal a person would write', () => {
    expect(String(fromMinorUnits(9_987_655, 'AED'))).toBe('99876.55');
    expect(String(fromMinorUnits(998_766, 'KWD'))).toBe('998.766');
  });

  it('refuses a fractional minor amount', () => {
    expect(() => fromMinorUnits(1.5, 'AED')).toThrow(AmountError);
  });
});
