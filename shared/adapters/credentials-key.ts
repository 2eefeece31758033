/**
 * The credentials key: where the vault's data keys come from. In AWS, the KMS key
 * `CREDENTIALS_KEY_ARN` (`GenerateDataKey` to seal, `Decrypt` to open, each with the vault's
 * encryption context); on the local stack, `LOCAL_ENCRYPTION_KEY` wraps them with AES-256-GCM.
 *
 * The previous sealed form's data keys (`unwrapPrevious`, for one release): each message of the
 * AWS Encryption SDK names the keyring that wrapped its data key, the SDK's KMS keyring (`aws-kms`,
 * the key's ARN; Decrypt with the message's context `{ depositId }`) or its raw AES keyring over the
 * local key (`bank-data-and-payments` / `local-credentials-key`; AES-256-GCM with the serialised
 * context as additional data). Each key here opens only what it wrapped, as the SDK's keyrings did.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { DecryptCommand, GenerateDataKeyCommand } from '@aws-sdk/client-kms';
import { kmsClient } from './clients.ts';
import { credentialsKeyContext, type DataKeys } from './credential-vault.ts';
import { type EncryptedDataKey, serializeContext } from './encryption-sdk-message.ts';

const noKeyOfOurs = () => new Error('sealed credentials hold no data key this key wrapped');

export class KmsDataKeys implements DataKeys {
  constructor(private readonly keyArn: string) {}

  async generate() {
    const answer = await kmsClient().send(
      new GenerateDataKeyCommand({
        KeyId: this.keyArn,
        KeySpec: 'AES_256',
        EncryptionContext: credentialsKeyContext,
      }),
    );
    if (!answer.Plaintext || !answer.CiphertextBlob) throw new Error('KMS gave no data key');
    return { plaintext: answer.Plaintext, wrapped: answer.CiphertextBlob };
  }

  async unwrap(wrapped: Uint8Array) {
    const answer = await kmsClient().send(
      new DecryptCommand({
        KeyId: this.keyArn,
        CiphertextBlob: wrapped,
        EncryptionContext: credentialsKeyContext,
      }),
    );
    if (!answer.Plaintext) throw new Error('KMS gave no data key');
    return answer.Plaintext;
  }

  async unwrapPrevious(keys: readonly EncryptedDataKey[], context: Readonly<Record<string, string>>) {
    const own = keys.find(
      (key) => key.providerId === 'aws-kms' && key.providerInfo.toString('utf8') === this.keyArn,
    );
    if (!own) throw noKeyOfOurs();
    const answer = await kmsClient().send(
      new DecryptCommand({
        KeyId: this.keyArn,
        CiphertextBlob: own.encrypted,
        EncryptionContext: { ...context },
      }),
    );
    if (!answer.Plaintext) throw new Error('KMS gave no data key');
    return answer.Plaintext;
  }
}

/** How the Encryption SDK's raw AES keyring named the local key: its name, tag and IV lengths. */
const localKeyring = {
  namespace: 'bank-data-and-payments',
  info: Buffer.concat([Buffer.from('local-credentials-key'), Buffer.from([0, 0, 0, 128, 0, 0, 0, 12])]),
};

/** The local stack's stand-in for KMS: data keys wrapped by a 32-byte key of its own. */
export class LocalDataKeys implements DataKeys {
  private readonly key: Buffer;

  constructor(localKey: string) {
    this.key = Buffer.from(localKey, 'base64');
    if (this.key.length !== 32) throw new Error('LOCAL_ENCRYPTION_KEY must be 32 bytes, base64');
  }

  async generate() {
    const plaintext = randomBytes(32);
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(credentialsKeyContext.purpose));
    const wrapped = Buffer.concat([iv, cipher.update(plaintext), cipher.final(), cipher.getAuthTag()]);
    return { plaintext, wrapped };
  }

  async unwrap(wrapped: Uint8Array) {
    const bytes = Buffer.from(wrapped);
    const decipher = createDecipheriv('aes-256-gcm', this.key, bytes.subarray(0, 12));
    decipher.setAAD(Buffer.from(credentialsKeyContext.purpose));
    decipher.setAuthTag(bytes.subarray(bytes.length - 16));
    return Buffer.concat([decipher.update(bytes.subarray(12, bytes.length - 16)), decipher.final()]);
  }

  async unwrapPrevious(keys: readonly EncryptedDataKey[], context: Readonly<Record<string, string>>) {
    const { namespace, info } = localKeyring;
    const own = keys.find(
      (key) =>
        key.providerId === namespace &&
        key.providerInfo.length === info.length + 12 &&
        key.providerInfo.subarray(0, info.length).equals(info),
    );
    if (!own || own.encrypted.length < 16) throw noKeyOfOurs();
    const decipher = createDecipheriv('aes-256-gcm', this.key, own.providerInfo.subarray(info.length));
    decipher.setAAD(serializeContext(context));
    decipher.setAuthTag(own.encrypted.subarray(own.encrypted.length - 16));
    const encrypted = own.encrypted.subarray(0, own.encrypted.length - 16);
    return Buffer.concat([decipher.update(encrypted), decipher.final()]);
  }
}

/** The data keys of this deployment: KMS when a key is named, else the local key. */
export function credentialsKey(options: { kmsKeyArn?: string | undefined; localKey?: string | undefined }) {
  if (options.kmsKeyArn) return new KmsDataKeys(options.kmsKeyArn);
  if (!options.localKey)
    throw new Error('Set CREDENTIALS_KEY_ARN (AWS) or LOCAL_ENCRYPTION_KEY (local stack)');
  return new LocalDataKeys(options.localKey);
}
