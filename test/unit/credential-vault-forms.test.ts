/**
 * The sealed forms of earlier releases, at a deploy: what deposits in flight hold
 * (test/support/sealed-credentials.json, sealed by the code of those releases) still opens when it is
 * the one form before this release's (`v1`), and any other form is refused, saying so, before any key
 * is asked: a later release's marker, a made-up one, and the form two releases back (the AWS
 * Encryption SDK's message), whose reader went with this change of form (docs/deploying.md).
 */
import { describe, expect, it } from 'vitest';
import { CredentialVault, type DataKeys, dataKeyOf } from '#shared/adapters/credential-vault';
import { LocalDataKeys } from '#shared/adapters/credentials-key';
import sealedBefore from '../support/sealed-credentials.json' with { type: 'json' };

const { v1, previous } = sealedBefore;

/** The local key the fixtures were sealed with, counting what the vault asks of it. */
function fixtureKeys() {
  const keys = new LocalDataKeys(sealedBefore.localKey);
  const asked = { generate: 0, unwrap: 0 };
  const counted: DataKeys & { asked: typeof asked } = {
    asked,
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

describe('the sealed forms of earlier releases, at a deploy', () => {
  it('opens credentials and answers sealed in v1, the form before the purpose was bound', async () => {
    // prepare
    const vault = new CredentialVault(fixtureKeys());

    // act
    const credentials = await vault.open('credentials', v1.credentials.depositId, v1.credentials.sealed);
    const answers = await vault.open('answers', v1.answers.depositId, v1.answers.sealed);

    // assess: each as it was sealed, and named by its data key as this release's are
    expect(credentials).toEqual({
      accessToken: 'token-sealed-in-v1',
      appSecret: 'app-secret-sealed-in-v1',
      userSecret: 'user-secret-sealed-in-v1',
    });
    expect(answers).toEqual([{ id: 'otp', index: 0, query: 'One-time password', answer: '123456' }]);
    expect(dataKeyOf(v1.credentials.sealed)).toMatch(/^[A-Za-z0-9_-]{16}$/);
  });

  it("refuses v1 under another deposit's id, or changed", async () => {
    const vault = new CredentialVault(fixtureKeys());
    const { depositId, sealed } = v1.credentials;
    const changed = `${sealed.slice(0, -2)}${sealed.endsWith('A') ? 'B' : 'A'}${sealed.slice(-1)}`;

    await expect(vault.open('credentials', 'dep-other', sealed)).rejects.toThrow('belong to another deposit');
    await expect(vault.open('credentials', depositId, changed)).rejects.toThrow();
  });

  it('refuses a form it does not read, saying so, and never tries to open it', async () => {
    // prepare: a later release's marker, an old or made-up one, the Encryption SDK's message (no
    // marker: the form before v1), and text that is no sealed form
    const keys = fixtureKeys();
    const vault = new CredentialVault(keys);
    const rest = v1.credentials.sealed.slice('v1'.length);
    const { depositId } = v1.credentials;
    const open = (sealed: string) => vault.open('credentials', depositId, sealed);

    // act and assess
    await expect(open(`v3${rest}`)).rejects.toThrow(
      'sealed credentials are in format v3, which this release does not read',
    );
    await expect(open(`v0${rest}`)).rejects.toThrow('format v0');
    await expect(open(`V1${rest}`)).rejects.toThrow('an unknown format');
    await expect(
      vault.open('credentials', previous.credentials.depositId, previous.credentials.sealed),
    ).rejects.toThrow('not in a form');
    await expect(open('not sealed at all')).rejects.toThrow('not in a form');
    await expect(open('')).rejects.toThrow('not in a form');
    expect(keys.asked).toEqual({ generate: 0, unwrap: 0 });
  });
});
