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

  it('normalises spacing and case', () => {
    expect(normalizeIban(' ae07 0331 2345 6789 0123 456 ')).toBe('AE070331234567890123456');
  });
});
