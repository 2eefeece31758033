/**
 * The owner key: OWNER_KEY locally (base64 of at least 32 bytes), or in AWS the secret that
 * OWNER_KEY_SECRET_ARN names, read once; anything else stops the handler at start, naming the
 * variable. Each test loads the configuration afresh (it is read once per process).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { keyedDigest } from '#shared/secrets';

const secretValue = vi.hoisted(() => ({ value: '' as unknown, reads: 0 }));
vi.mock('@aws-lambda-powertools/parameters/secrets', () => ({
  getSecret: async () => {
    secretValue.reads += 1;
    return secretValue.value;
  },
}));

const saved = { ...process.env };
const key32 = Buffer.alloc(32, 'k');
const arn = 'arn:aws:secretsmanager:us-east-1:123456789012:secret:owner-key-AbCdEf';

beforeEach(() => {
  vi.resetModules();
  delete process.env.OWNER_KEY;
  delete process.env.OWNER_KEY_SECRET_ARN;
  secretValue.reads = 0;
});
afterEach(() => {
  process.env = { ...saved };
});

const config = () => import('#shared/config');
const wiring = () => import('#shared/wiring/owner-digests');

describe('the owner key', () => {
  it('is refused when missing, naming OWNER_KEY', async () => {
    const { ownerKeyConfig } = await config();
    expect(ownerKeyConfig).toThrow(/OWNER_KEY: must be set to base64 of at least 32 random bytes/);
  });

  it.for([
    ['shorter than 32 bytes', Buffer.alloc(31, 'k').toString('base64')],
    ['not base64', `${'!'.repeat(44)}`],
    ['empty', ''],
  ])('is refused %s, naming OWNER_KEY', async ([, value]) => {
    process.env.OWNER_KEY = value;
    const { ownerKeyConfig } = await config();
    expect(ownerKeyConfig).toThrow(/Invalid configuration: OWNER_KEY: must be base64 of at least 32/);
  });

  it('is taken as the bytes its base64 stands for, and keys tokens with them', async () => {
    process.env.OWNER_KEY = key32.toString('base64');
    const { ownerKeyConfig } = await config();
    const { ownerDigests } = await wiring();

    expect(ownerKeyConfig().OWNER_KEY).toEqual(key32);
    expect((await ownerDigests()).of('token')).toBe(keyedDigest(key32, 'token'));
    expect(secretValue.reads).toBe(0);
  });

  it('comes from the secret OWNER_KEY_SECRET_ARN names in AWS, read once', async () => {
    process.env.OWNER_KEY_SECRET_ARN = arn;
    // What the stack generates: 64 characters of [A-Za-z0-9], read as base64 (48 bytes).
    secretValue.value = 'Ab3'.repeat(21).concat('Z');
    const { ownerDigests } = await wiring();

    const digests = await ownerDigests();
    await ownerDigests();

    const key = Buffer.from(String(secretValue.value), 'base64');
    expect(key.length).toBe(48);
    expect(digests.of('token')).toBe(keyedDigest(key, 'token'));
    expect(secretValue.reads).toBe(1);
  });

  it('is refused when the secret holds less than 32 bytes, naming OWNER_KEY_SECRET_ARN', async () => {
    process.env.OWNER_KEY_SECRET_ARN = arn;
    secretValue.value = 'c2hvcnQ=';
    const { ownerDigests } = await wiring();

    await expect(ownerDigests()).rejects.toThrow(
      /OWNER_KEY_SECRET_ARN: the secret must hold base64 of at least 32/,
    );
  });
});
