/**
 * The credential vault: each sealing bound to its deposit and committed to its key, and the data
 * keys kept per instance, so that KMS is asked once per data key rather than once per step. Over
 * the local key (the same AES-GCM wrapping KMS stands in for), with a manual clock. The bounds of
 * a sealing (the tag, the purpose, a data key's life and id) are in `credential-vault-limits.test.ts`,
 * the forms of earlier releases in `credential-vault-forms.test.ts`.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  CredentialVault,
  type DataKeys,
  dataKeyMaxAgeMs,
  dataKeyUses,
} from '#shared/adapters/credential-vault';
import { LocalDataKeys } from '#shared/adapters/credentials-key';

const secret = { accessToken: 'token-of-the-user', userSecret: 'secret-of-the-user' };

/** The local key, counting what the vault asks of it (what would be KMS requests in AWS). */
function countedKeys(localKey = randomBytes(32).toString('base64')) {
  const keys = new LocalDataKeys(localKey);
  const asked = { generate: 0, unwrap: 0 };
  const counted: DataKeys & { asked: typeof asked; localKey: string } = {
    asked,
    localKey,
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

/** A sealed text with one base64url part changed. */
function withPart(sealed: string, index: number, change: (bytes: Buffer) => Buffer) {
  const parts = sealed.split('.');
  parts[index] = change(Buffer.from(parts[index] ?? '', 'base64url')).toString('base64url');
  return parts.join('.');
}

describe('the credential vault', () => {
  it('opens what it sealed for the same deposit, in another instance too, and holds no secret in the clear', async () => {
    const keys = countedKeys();
    const sealed = await new CredentialVault(keys).seal('credentials', 'dep-1', secret);
    expect(sealed).toMatch(/^v2(\.[A-Za-z0-9_-]+){5}$/);
    expect(sealed).not.toContain('token-of-the-user');
    expect(Buffer.from(sealed.split('.')[5] ?? '', 'base64url').toString()).not.toContain('token');
    expect(await new CredentialVault(keys).open('credentials', 'dep-1', sealed)).toEqual(secret);
  });

  it("refuses another deposit's id, a changed text, salt, commitment or wrapped key, and another key", async () => {
    const keys = countedKeys();
    const vault = new CredentialVault(keys);
    const sealed = await vault.seal('credentials', 'dep-1', secret);
    await expect(vault.open('credentials', 'dep-2', sealed)).rejects.toThrow('belong to another deposit');
    const flip = (bytes: Buffer) => {
      const copy = Buffer.from(bytes);
      copy[copy.length - 1] = (copy.at(-1) ?? 0) ^ 1;
      return copy;
    };
    await expect(vault.open('credentials', 'dep-1', withPart(sealed, 5, flip))).rejects.toThrow(); // the text
    await expect(vault.open('credentials', 'dep-1', withPart(sealed, 2, flip))).rejects.toThrow(
      'another key',
    ); // salt
    await expect(vault.open('credentials', 'dep-1', withPart(sealed, 4, flip))).rejects.toThrow(
      'another key',
    ); // commitment
    await expect(vault.open('credentials', 'dep-1', withPart(sealed, 3, flip))).rejects.toThrow(); // iv
    // A wrapped key that is not the one sealed with: KMS (here the local key) refuses it.
    await expect(
      new CredentialVault(keys).open('credentials', 'dep-1', withPart(sealed, 1, flip)),
    ).rejects.toThrow();
    await expect(new CredentialVault(countedKeys()).open('credentials', 'dep-1', sealed)).rejects.toThrow();
    await expect(vault.open('credentials', 'dep-1', `v0.${sealed.slice(3)}`)).rejects.toThrow('format v0');
    await expect(vault.open('credentials', 'dep-1', sealed.split('.').slice(0, 5).join('.'))).rejects.toThrow(
      'not in a form',
    );
  });

  it('seals many deposits with one data key, and opens them with one unwrap per instance', async () => {
    const keys = countedKeys();
    const sealer = new CredentialVault(keys);
    const sealed = await Promise.all(
      Array.from({ length: 50 }, (_, index) =>
        sealer.seal('credentials', `dep-${index}`, { ...secret, index }),
      ),
    );
    expect(keys.asked).toEqual({ generate: 1, unwrap: 0 });
    // The sealer opens with the key it holds; another instance unwraps it once, concurrent opens included.
    expect(await sealer.open('credentials', 'dep-7', sealed[7] ?? '')).toEqual({ ...secret, index: 7 });
    expect(keys.asked.unwrap).toBe(0);
    const opener = new CredentialVault(keys);
    const opened = await Promise.all(
      sealed.map((text, index) => opener.open('credentials', `dep-${index}`, text)),
    );
    expect(opened.map((value) => (value as { index: number }).index)).toEqual(
      sealed.map((_, index) => index),
    );
    expect(keys.asked).toEqual({ generate: 1, unwrap: 1 });
    // Each sealing has its own salt and iv: no two texts alike, even of the same secret.
    expect(new Set(sealed.map((text) => text.split('.')[2])).size).toBe(50);
  });

  it('takes a new data key after its age or its uses, and unwraps a kept one again after its age', async () => {
    const time = clock();
    const keys = countedKeys();
    const sealer = new CredentialVault(keys, { now: time.now });
    const opener = new CredentialVault(keys, { now: time.now });
    const first = await sealer.seal('credentials', 'dep-1', secret);
    await opener.open('credentials', 'dep-1', first);
    time.advance(dataKeyMaxAgeMs - 1);
    const second = await sealer.seal('credentials', 'dep-2', secret);
    await opener.open('credentials', 'dep-1', first);
    expect(second.split('.')[1]).toBe(first.split('.')[1]);
    expect(keys.asked).toEqual({ generate: 1, unwrap: 1 });
    time.advance(1);
    const third = await sealer.seal('credentials', 'dep-3', secret);
    expect(third.split('.')[1]).not.toBe(first.split('.')[1]);
    await opener.open('credentials', 'dep-1', first);
    expect(keys.asked).toEqual({ generate: 2, unwrap: 2 });

    const counted = countedKeys();
    expect(dataKeyUses).toBe(1_000);
    const busy = new CredentialVault(counted, { now: time.now, usesPerKey: 100 });
    for (let index = 0; index < 100; index += 1) await busy.seal('credentials', `dep-${index}`, secret);
    expect(counted.asked.generate).toBe(1);
    await busy.seal('credentials', 'one-more', secret);
    expect(counted.asked.generate).toBe(2);
  });

  it('asks again after a failed generation or unwrap, and says the failure', async () => {
    const keys = countedKeys();
    let failing = true;
    const flaky: DataKeys = {
      generate: () => (failing ? Promise.reject(new Error('KMS throttled')) : keys.generate()),
      unwrap: (wrapped) => (failing ? Promise.reject(new Error('KMS throttled')) : keys.unwrap(wrapped)),
    };
    const vault = new CredentialVault(flaky);
    await expect(vault.seal('credentials', 'dep-1', secret)).rejects.toThrow('KMS throttled');
    failing = false;
    const sealed = await vault.seal('credentials', 'dep-1', secret);
    failing = true;
    const opener = new CredentialVault(flaky);
    await expect(opener.open('credentials', 'dep-1', sealed)).rejects.toThrow('KMS throttled');
    failing = false;
    expect(await opener.open('credentials', 'dep-1', sealed)).toEqual(secret);
  });
});
