/**
 * Secrets are 256-bit random tokens. They are stored as SHA-256 digests (a slow KDF only matters for
 * secrets people choose) and compared in constant time.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export function randomSecret(prefix: string): string {
  return `${prefix}${randomBytes(32).toString('base64url')}`;
}

export function digest(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('base64url');
}

/** Constant-time comparison of a presented secret with a stored digest. */
export function matchesDigest(secret: string, storedDigest: string | undefined): boolean {
  const presented = createHash('sha256').update(secret, 'utf8').digest();
  const stored = Buffer.from(storedDigest ?? '', 'base64url');
  if (stored.length !== presented.length) {
    // Still spend the comparison so a missing digest takes as long as a wrong one.
    timingSafeEqual(presented, presented);
    return false;
  }
  return timingSafeEqual(presented, stored);
}
