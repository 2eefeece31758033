/**
 * IBAN checks (ISO 13616) through `ibantools`: the normalised form, then the country's own length and
 * national format (its BBAN structure, from the IBAN registry) and the mod-97 check digits.
 */
import { isValidIBAN } from 'ibantools';

/** Spaces removed, upper case: the form IBANs are stored and compared in. */
export function normalizeIban(iban: string): string {
  return iban.replace(/\s+/g, '').toUpperCase();
}

/** Valid for its country: known country, that country's length and BBAN format, check digits. */
export function isValidIban(iban: string): boolean {
  return isValidIBAN(normalizeIban(iban));
}
