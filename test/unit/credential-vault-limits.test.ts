/**
 * What bounds a sealing: only a whole 16-byte GCM tag opens, and a body shorter than the
 * tag is refused before any key is asked; the purpose (the user's credentials, or the caller's
 * answers) is bound into the key and the additional data, so neither opens as the other; a data key
 * seals at most 1,000 deposits and lives at most a minute, in the sealer and in every opener; each
 * sealing names the data key that sealed it, and its item records it beside an expiry that outlives
 * any deposit. Over the local key (the AES-GCM wrapping KMS stands in for), with a manual clock.
 */
import { createCipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  CredentialVault,
  type DataKeys,
  dataKeyMaxAgeMs,
  dataKeyOf,
  dataKeyUses,
} from '#shared/adapters/credential-vault';
import { LocalDataKeys } from '#shared/adapters/credentials-key';
import { sealedItem, sealedTtlSeconds } from '#shared/adapters/deposits-table-items';

const secret = { accessToken: 'token-of-the-user', appSecret: 'app', userSecret: 'secret-of-the-user' };
const answers = [{ id: 'otp', index: 0, query: 'One-time password', answer: '123456' }];

/** The local key, counting what the vault asks of it (what would be KMS requests in AWS). */
function countedKeys(localKey = randomBytes(32).toString('base64')) {
  const keys = new LocalDataKeys(localKey);
  const asked = { generate: 0, unwrap: 0 };
  const counted: DataKeys & { asked: typeof asked; local: LocalDataKeys } = {
    asked,
    local: keys,
    generate: () => {
      asked.generate += 1;
      return keys.generate();
    },
    unwrap: (wrapped) => {
      asked.unwrap += 1;
      return keys.unwrap(wrapped);
    },
  };
  return counted;
}

function clock() {
  let now = 1_000_000;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

/** A sealed text with its last part (the ciphertext and its tag) changed. */
function withBody(sealed: string, change: (body: Buffer) => Buffer) {
  const parts = sealed.split('.');
  const last = parts.length - 1;
  parts[last] = change(Buffer.from(parts[last] ?? '', 'base64url')).toString('base64url');
  return parts.join('.');
}

describe('the tag of a sealing', () => {
  it('refuses a body shorter than the tag, saying so, before any key is asked', async () => {
    // prepare
    const keys = countedKeys();
    const sealed = await new CredentialVault(keys).seal('credentials', 'dep-1', secret);
    const opener = new CredentialVault(keys);

    // act
    const cut = (length: number) =>
      opener.open(
        'credentials',
        'dep-1',
        withBody(sealed, (body) => body.subarray(0, length)),
      );

    // assess
    for (const length of [1, 12, 15]) await expect(cut(length)).rejects.toThrow('shorter than its tag');
    expect(keys.asked.unwrap).toBe(0);
  });

  it('refuses a 4-byte tag, which GCM takes unless told the length: a 12-byte body read as 8 bytes of text and a 4-byte tag', async () => {
    // prepare: a forgery in the form before (v1, still read) with a tag of 4 bytes, which the reader
    // before this change opened (a 2^-32 guess per try)
    const keys = countedKeys();
    const { plaintext, wrapped } = await keys.local.generate();
    const salt = randomBytes(32);
    const iv = randomBytes(12);
    const derived = Buffer.from(hkdfSync('sha512', plaintext, salt, 'v1 credentials dep-1', 64));
    const wrappedText = Buffer.from(wrapped).toString('base64url');
    const cipher = createCipheriv('aes-256-gcm', derived.subarray(0, 32), iv, { authTagLength: 4 });
    cipher.setAAD(Buffer.from(`v1.${wrappedText}.dep-1`));
    const body = Buffer.concat([cipher.update('"forged"'), cipher.final(), cipher.getAuthTag()]);
    const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64url');
    const forged = ['v1', wrappedText, b64(salt), b64(iv), b64(derived.subarray(32)), b64(body)].join('.');

    // act
    const opened = new CredentialVault(keys).open('credentials', 'dep-1', forged);

    // assess
    expect(body.length).toBe(12);
    await expect(opened).rejects.toThrow('shorter than its tag');
  });
});

describe('the purpose of a sealing', () => {
  it('never opens answers as credentials, nor credentials as answers', async () => {
    // prepare
    const keys = countedKeys();
    const vault = new CredentialVault(keys);
    const sealedAnswers = await vault.seal('answers', 'dep-1', answers);
    const sealedCredentials = await vault.seal('credentials', 'dep-1', secret);

    // act and assess: each opens for its own purpose only, in the sealer and in another instance
    expect(await vault.open('answers', 'dep-1', sealedAnswers)).toEqual(answers);
    expect(await new CredentialVault(keys).open('credentials', 'dep-1', sealedCredentials)).toEqual(secret);
    for (const opener of [vault, new CredentialVault(keys)]) {
      await expect(opener.open('credentials', 'dep-1', sealedAnswers)).rejects.toThrow('another purpose');
      await expect(opener.open('answers', 'dep-1', sealedCredentials)).rejects.toThrow('another purpose');
    }
  });

  it('seals in the form of this release, v2', async () => {
    const sealed = await new CredentialVault(countedKeys()).seal('credentials', 'dep-1', secret);

    expect(sealed).toMatch(/^v2(\.[A-Za-z0-9_-]+){5}$/);
  });
});

describe('the life of a data key', () => {
  it('seals at most 1,000 deposits', async () => {
    // prepare
    const keys = countedKeys();
    const vault = new CredentialVault(keys);

    // act
    const sealed: string[] = [];
    for (let index = 0; index < 1_001; index += 1)
      sealed.push(await vault.seal('credentials', `d${index}`, 1));

    // assess
    expect(dataKeyUses).toBe(1_000);
    expect(keys.asked.generate).toBe(2);
    expect(new Set(sealed.slice(0, 1_000).map(dataKeyOf)).size).toBe(1);
    expect(dataKeyOf(sealed[1_000] ?? '')).not.toBe(dataKeyOf(sealed[0] ?? ''));
  });

  it('lives at most a minute, in the sealer and in an opener that unwrapped it', async () => {
    // prepare
    const time = clock();
    const keys = countedKeys();
    const sealer = new CredentialVault(keys, { now: time.now });
    const opener = new CredentialVault(keys, { now: time.now });
    const first = await sealer.seal('credentials', 'dep-1', secret);
    await opener.open('credentials', 'dep-1', first);

    // act: just under a minute the key serves both; at a minute neither holds it
    time.advance(59_999);
    const second = await sealer.seal('credentials', 'dep-2', secret);
    await opener.open('credentials', 'dep-1', first);
    const before = { ...keys.asked };
    time.advance(1);
    const third = await sealer.seal('credentials', 'dep-3', secret);
    await opener.open('credentials', 'dep-1', first);

    // assess
    expect(dataKeyMaxAgeMs).toBe(60_000);
    expect(dataKeyOf(second)).toBe(dataKeyOf(first));
    expect(before).toEqual({ generate: 1, unwrap: 1 });
    expect(dataKeyOf(third)).not.toBe(dataKeyOf(first));
    expect(keys.asked).toEqual({ generate: 2, unwrap: 2 });
  });

  it('is named by every sealing, and told when made or unwrapped, so that an incident can be scoped', async () => {
    // prepare
    const keys = countedKeys();
    const told: { dataKey: string; how: string }[] = [];
    const onDataKey = (dataKey: string, how: 'made' | 'unwrapped') => told.push({ dataKey, how });
    const sealer = new CredentialVault(keys, { onDataKey });

    // act
    const sealed = await sealer.seal('credentials', 'dep-1', secret);
    await new CredentialVault(keys, { onDataKey }).open('credentials', 'dep-1', sealed);
    const dataKey = dataKeyOf(sealed);

    // assess: a short id of the wrapped data key, no secret in it, the same in both
    expect(dataKey).toMatch(/^[A-Za-z0-9_-]{16}$/);
    expect(told).toEqual([
      { dataKey, how: 'made' },
      { dataKey, how: 'unwrapped' },
    ]);
    expect(dataKeyOf('not sealed')).toBeUndefined();
  });
});

describe('the item of sealed credentials', () => {
  it('records the data key that sealed them, and expires well after any deposit ends', async () => {
    // prepare
    const sealedCredentials = await new CredentialVault(countedKeys()).seal('credentials', 'dep-1', secret);
    const createdAt = Date.UTC(2025, 0, 1);

    // act
    const item = sealedItem({ id: 'dep-1', createdAt, sealedCredentials });

    // assess: a week, beyond the two days the longest deposit takes (docs/deploying.md)
    expect(sealedTtlSeconds).toBe(7 * 86_400);
    expect(item).toEqual({
      pk: 'DEPOSIT#dep-1',
      sk: 'SEALED',
      sealedCredentials,
      dataKey: dataKeyOf(sealedCredentials),
      expiresAt: createdAt / 1000 + 7 * 86_400,
    });
  });
});
