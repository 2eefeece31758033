import { describe, expect, it } from 'vitest';
import { isValidIban, normalizeIban } from '#shared/iban';

describe('IBAN', () => {
  it.each([
    'AE070331234567890123456',
    'ae07 0331 2345 6789 0123 456',
    'GB82WEST12345698765432',
    'KW81CBKU0000000000001234560101',
    'DE89370400440532013000',
  ])('accepts %s', (iban) => {
    expect(isValidIban(iban)).toBe(true);
  });

  it.each(['AE070331234567890123457', 'AE0703312345', 'XX00', '', 'AE07-0331-2345-6789-0123-456'])(
    'rejects %s',
    (iban) => {
      expect(isValidIban(iban)).toBe(false);
    },
  );

  // Each has correct mod-97 check digits: only the country's own rules refuse it.
  it.each([
    ['a UAE IBAN one digit short (AE is 23 characters)', 'AE93033123456789012345'],
    ['a UAE IBAN one digit long', 'AE9003312345678901234567'],
    ['a UAE IBAN with letters where its BBAN has digits', 'AE38033ABCDEFGHIJ012345'],
    ['a German IBAN of a UAE length', 'DE51370400440532013000123'],
    ['a British IBAN whose bank code is digits (GB wants four letters)', 'GB25123412345698765432'],
    ['an IBAN of a country without IBANs', 'US64SVBKUS6S3300958879'],
  ])('rejects %s', (_name, iban) => {
    expect(isValidIban(iban)).toBe(false);
  });

  it('normalises spacing and case', () => {
    expect(normalizeIban(' ae07 0331 2345 6789 0123 456 ')).toBe('AE070331234567890123456');
  });
});
