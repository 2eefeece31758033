import { describe, expect, it } from 'vitest';
import { digest, matchesDigest, randomSecret } from '#shared/secrets';

describe('secrets', () => {
  it('makes distinct prefixed 256-bit secrets', () => {
    const secrets = new Set(Array.from({ length: 1000 }, () => randomSecret('us_')));
    expect(secrets.size).toBe(1000);
    for (const secret of secrets) expect(secret).toMatch(/^us_[A-Za-z0-9_-]{43}$/);
  });

  it('stores a digest that does not contain the secret and matches only it', () => {
    const secret = randomSecret('at_');
    const stored = digest(secret);
    expect(stored).not.toContain(secret.slice(3));
    expect(matchesDigest(secret, stored)).toBe(true);
    expect(matchesDigest(`${secret}x`, stored)).toBe(false);
    expect(matchesDigest(secret, undefined)).toBe(false);
    expect(matchesDigest(secret, 'short')).toBe(false);
  });
});
