/**
 * The credential vault: each sealing bound to its deposit and committed to its key, and the data
 * keys kept per instance, so that KMS is asked once per data key rather than once per step. Over
 * the local key (the same AES-GCM wrapping KMS stands in for), with a manual clock. And the forms
 * of earlier releases: what deposits in flight at a deploy hold (test/support/sealed-credentials.json,
 * sealed by the code of those releases) still opens, and a form this release does not know is refused.
 */
import { randomBytes } from 'node:crypto';
import { KMSClient } from '@aws-sdk/client-kms';
import { describe, expect, it, vi } from 'vitest';
import {
  CredentialVault,
  type DataKeys,
  dataKeyMaxAgeMs,
  dataKeyUses,
} from '#shared/adapters/credential-vault';
import { KmsDataKeys, LocalDataKeys } from '#shared/adapters/credentials-key';
import sealedBefore from '../support/sealed-credentials.json' with { type: 'json' };

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
    unwrapPrevious: (wrapped, context) => {
      asked.unwrap += 1;
      return keys.unwrapPrevious(wrapped, context);
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
    const sealed = await new CredentialVault(keys).seal('dep-1', secret);
    expect(sealed).toMatch(/^v1(\.[A-Za-z0-9_-]+){5}$/);
    expect(sealed).not.toContain('token-of-the-user');
    expect(Buffer.from(sealed.split('.')[5] ?? '', 'base64url').toString()).not.toContain('token');
    expect(await new CredentialVault(keys).open('dep-1', sealed)).toEqual(secret);
  });

  it("refuses another deposit's id, a changed text, salt, commitment or wrapped key, and another key", async () => {
    const keys = countedKeys();
    const vault = new CredentialVault(keys);
    const sealed = await vault.seal('dep-1', secret);
    await expect(vault.open('dep-2', sealed)).rejects.toThrow('belong to another deposit');
    const flip = (bytes: Buffer) => {
      const copy = Buffer.from(bytes);
      copy[copy.length - 1] = (copy.at(-1) ?? 0) ^ 1;
      return copy;
    };
    await expect(vault.open('dep-1', withPart(sealed, 5, flip))).rejects.toThrow(); // the text
    await expect(vault.open('dep-1', withPart(sealed, 2, flip))).rejects.toThrow('another key'); // salt
    await expect(vault.open('dep-1', withPart(sealed, 4, flip))).rejects.toThrow('another key'); // commitment
    await expect(vault.open('dep-1', withPart(sealed, 3, flip))).rejects.toThrow(); // iv
    // A wrapped key that is not the one sealed with: KMS (here the local key) refuses it.
    await expect(new CredentialVault(keys).open('dep-1', withPart(sealed, 1, flip))).rejects.toThrow();
    await expect(new CredentialVault(countedKeys()).open('dep-1', sealed)).rejects.toThrow();
    await expect(vault.open('dep-1', `v0.${sealed.slice(3)}`)).rejects.toThrow('format v0');
    await expect(vault.open('dep-1', sealed.split('.').slice(0, 5).join('.'))).rejects.toThrow(
      'not in a form',
    );
  });

  it('seals many deposits with one data key, and opens them with one unwrap per instance', async () => {
    const keys = countedKeys();
    const sealer = new CredentialVault(keys);
    const sealed = await Promise.all(
      Array.from({ length: 50 }, (_, index) => sealer.seal(`dep-${index}`, { ...secret, index })),
    );
    expect(keys.asked).toEqual({ generate: 1, unwrap: 0 });
    // The sealer opens with the key it holds; another instance unwraps it once, concurrent opens included.
    expect(await sealer.open('dep-7', sealed[7] ?? '')).toEqual({ ...secret, index: 7 });
    expect(keys.asked.unwrap).toBe(0);
    const opener = new CredentialVault(keys);
    const opened = await Promise.all(sealed.map((text, index) => opener.open(`dep-${index}`, text)));
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
    const sealer = new CredentialVault(keys, time.now);
    const opener = new CredentialVault(keys, time.now);
    const first = await sealer.seal('dep-1', secret);
    await opener.open('dep-1', first);
    time.advance(dataKeyMaxAgeMs - 1);
    const second = await sealer.seal('dep-2', secret);
    await opener.open('dep-1', first);
    expect(second.split('.')[1]).toBe(first.split('.')[1]);
    expect(keys.asked).toEqual({ generate: 1, unwrap: 1 });
    time.advance(1);
    const third = await sealer.seal('dep-3', secret);
    expect(third.split('.')[1]).not.toBe(first.split('.')[1]);
    await opener.open('dep-1', first);
    expect(keys.asked).toEqual({ generate: 2, unwrap: 2 });

    const counted = countedKeys();
    expect(dataKeyUses).toBe(10_000);
    const busy = new CredentialVault(counted, time.now, 100);
    for (let index = 0; index < 100; index += 1) await busy.seal(`dep-${index}`, secret);
    expect(counted.asked.generate).toBe(1);
    await busy.seal('one-more', secret);
    expect(counted.asked.generate).toBe(2);
  });

  it('asks again after a failed generation or unwrap, and says the failure', async () => {
    const keys = countedKeys();
    let failing = true;
    const flaky: DataKeys = {
      generate: () => (failing ? Promise.reject(new Error('KMS throttled')) : keys.generate()),
      unwrap: (wrapped) => (failing ? Promise.reject(new Error('KMS throttled')) : keys.unwrap(wrapped)),
      unwrapPrevious: (wrapped, context) => keys.unwrapPrevious(wrapped, context),
    };
    const vault = new CredentialVault(flaky);
    await expect(vault.seal('dep-1', secret)).rejects.toThrow('KMS throttled');
    failing = false;
    const sealed = await vault.seal('dep-1', secret);
    failing = true;
    const opener = new CredentialVault(flaky);
    await expect(opener.open('dep-1', sealed)).rejects.toThrow('KMS throttled');
    failing = false;
    expect(await opener.open('dep-1', sealed)).toEqual(secret);
  });
});

/** What the earlier releases sealed (test/support/sealed-credentials.json says how each was made). */
const { previous, v1 } = sealedBefore;
const sealedCredentials = {
  accessToken: 'token-sealed-before-issue-22',
  appSecret: 'app-secret-sealed-before-issue-22',
  userSecret: 'user-secret-sealed-before-issue-22',
};

/** The KMS stand-in the previous fixture was sealed with: a data key's blob is its bytes XOR 0x5a. */
function kmsStandIn() {
  const asked: Record<string, unknown>[] = [];
  const send = vi.spyOn(KMSClient.prototype, 'send').mockImplementation((async (command: {
    input: { KeyId: string; CiphertextBlob: Uint8Array; EncryptionContext: Record<string, string> };
  }) => {
    asked.push({ name: command.constructor.name, ...command.input });
    const blob = Buffer.from(command.input.CiphertextBlob);
    return { KeyId: command.input.KeyId, Plaintext: Uint8Array.from(blob, (byte) => byte ^ 0x5a) };
  }) as never);
  return { asked, restore: () => send.mockRestore() };
}

describe('the sealed forms of earlier releases, at a deploy', () => {
  it('opens credentials and answers sealed the previous way (the Encryption SDK, before issue 22) with the local key', async () => {
    // prepare: a vault of this release over the local key the previous one sealed with
    const keys = countedKeys(sealedBefore.localKey);
    const vault = new CredentialVault(keys);

    // act
    const credentials = await vault.open(previous.credentials.depositId, previous.credentials.sealed);
    const answers = await vault.open(previous.answers.depositId, previous.answers.sealed);
    const long = await vault.open(previous.long.depositId, previous.long.sealed);

    // assess: each opens as it was sealed, a secret of two frames too; no data key made
    expect(credentials).toEqual(sealedCredentials);
    expect(answers).toEqual([{ id: 'otp', index: 0, query: 'One-time password', answer: '123456' }]);
    expect(long).toEqual({ ...sealedCredentials, accessToken: 'long-'.repeat(830) });
    expect(keys.asked).toEqual({ generate: 0, unwrap: 3 });
  });

  it("opens credentials sealed the previous way under KMS: Decrypt of the key's own data key, with the message's context", async () => {
    // prepare
    const kms = kmsStandIn();
    try {
      // act
      const opened = await new CredentialVault(new KmsDataKeys(sealedBefore.keyArn)).open(
        previous.kms.depositId,
        previous.kms.sealed,
      );
      const otherKey = new KmsDataKeys(sealedBefore.keyArn.replace(/.$/, '0'));
      const refused = new CredentialVault(otherKey).open(previous.kms.depositId, previous.kms.sealed);

      // assess: KMS asked as the Encryption SDK asked it, with the deposit as context; another key is not asked
      expect(opened).toEqual(sealedCredentials);
      await expect(refused).rejects.toThrow('no data key this key wrapped');
      expect(kms.asked).toEqual([
        {
          name: 'DecryptCommand',
          KeyId: sealedBefore.keyArn,
          CiphertextBlob: expect.any(Uint8Array),
          EncryptionContext: { depositId: previous.kms.depositId },
        },
      ]);
    } finally {
      kms.restore();
    }
  });

  it("refuses the previous way too: another deposit's id, a changed byte, another key, a message cut short", async () => {
    // prepare
    const vault = new CredentialVault(countedKeys(sealedBefore.localKey));
    const { depositId, sealed } = previous.credentials;
    const bytes = Buffer.from(sealed, 'base64');
    const changedAt = (index: number) => {
      const copy = Buffer.from(bytes);
      copy[index] = (copy[index] ?? 0) ^ 1;
      return copy.toString('base64');
    };

    // act and assess
    await expect(vault.open('dep-other', sealed)).rejects.toThrow('belong to another deposit');
    await expect(vault.open(depositId, changedAt(bytes.length - 1))).rejects.toThrow(); // the tag
    await expect(vault.open(depositId, changedAt(bytes.length - 40))).rejects.toThrow(); // the text
    await expect(vault.open(depositId, changedAt(10))).rejects.toThrow(); // the message id
    await expect(new CredentialVault(countedKeys()).open(depositId, sealed)).rejects.toThrow();
    await expect(vault.open(depositId, bytes.subarray(0, 200).toString('base64'))).rejects.toThrow(
      'not in a form',
    );
    await expect(vault.open(depositId, `${sealed}AAAA`)).rejects.toThrow('not in a form');
  });

  it('opens credentials sealed in v1 (the form of issue 22), as before this change', async () => {
    const vault = new CredentialVault(countedKeys(sealedBefore.localKey));
    expect(await vault.open(v1.credentials.depositId, v1.credentials.sealed)).toEqual({
      accessToken: 'token-sealed-in-v1',
      appSecret: 'app-secret-sealed-in-v1',
      userSecret: 'user-secret-sealed-in-v1',
    });
  });

  it('refuses a form it does not know, saying so, and never tries to open it', async () => {
    // prepare: a later release's marker, an old or made-up one, and text that is no sealed form
    const keys = countedKeys(sealedBefore.localKey);
    const vault = new CredentialVault(keys);
    const rest = v1.credentials.sealed.slice('v1'.length);
    const { depositId } = v1.credentials;

    // act and assess
    await expect(vault.open(depositId, `v2${rest}`)).rejects.toThrow(
      'sealed credentials are in format v2, which this release does not read',
    );
    await expect(vault.open(depositId, `v0${rest}`)).rejects.toThrow('format v0');
    await expect(vault.open(depositId, `V1${rest}`)).rejects.toThrow('an unknown format');
    await expect(vault.open(depositId, 'not sealed at all')).rejects.toThrow('not in a form');
    await expect(vault.open(depositId, '')).rejects.toThrow('not in a form');
    expect(keys.asked).toEqual({ generate: 0, unwrap: 0 });
  });
});
