/**
 * Secrets are 256-bit random tokens. The sandbox stores its own as SHA-256 digests (a slow KDF only
 * matters for secrets people choose); the orchestrator keys a caller's deposits by keyed digests
 * (HMAC-SHA256 under a key the table does not hold), so that whoever reads the table, or a backup,
 * cannot confirm a guessed or leaked token against it. Both are compared in constant time.
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export function randomSecret(prefix: string): string {
  return `${prefix}${randomBytes(32).toString('base64url')}`;
}

export function digest(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('base64url');
}

/** Constant-time comparison of a presented secret with a stored digest. */
export function matchesDigest(secret: string, storedDigest: string | undefined): boolean {
  return sameBytes(createHash('sha256').update(secret, 'utf8').digest(), storedDigest);
}

/** The keyed digest of `value`: HMAC-SHA256 under `key`, base64url. */
export function keyedDigest(key: Uint8Array, value: string): string {
  return createHmac('sha256', key).update(value, 'utf8').digest('base64url');
}

/** Constant-time comparison of a presented value with a stored keyed digest of it. */
export function matchesKeyedDigest(
  key: Uint8Array,
  value: string,
  storedDigest: string | undefined,
): boolean {
  return sameBytes(createHmac('sha256', key).update(value, 'utf8').digest(), storedDigest);
}

/** The keyed digests under one key (the deposits' `OwnerDigests` port); the key is copied. */
export function keyedDigests(key: Uint8Array) {
  const own = Uint8Array.from(key);
  return {
    of: (value: string) => keyedDigest(own, value),
    matches: (value: string, stored: string | undefined) => matchesKeyedDigest(own, value, stored),
  };
}

function sameBytes(presented: Buffer, storedDigest: string | undefined): boolean {
  const stored = Buffer.from(storedDigest ?? '', 'base64url');
  if (stored.length !== presented.length) {
    // Still spend the comparison so a missing digest takes as long as a wrong one.
    timingSafeEqual(presented, presented);
    return false;
  }
  return timingSafeEqual(presented, stored);
}
