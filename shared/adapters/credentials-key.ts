/**
 * The credentials key: where the vault's data keys come from. In AWS, the KMS key
 * `CREDENTIALS_KEY_ARN` (`GenerateDataKey` to seal, `Decrypt` to open, each with the vault's
 * encryption context); on the local stack, `LOCAL_ENCRYPTION_KEY` wraps them with AES-256-GCM.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { DecryptCommand, GenerateDataKeyCommand } from '@aws-sdk/client-kms';
import { kmsClient } from './clients.ts';
import { credentialsKeyContext, type DataKeys } from './credential-vault.ts';

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
}

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
    // The IV, the 32-byte data key and a whole tag, or nothing to unwrap.
    if (bytes.length !== 12 + 32 + 16) throw new Error('not a data key this key wrapped');
    const decipher = createDecipheriv('aes-256-gcm', this.key, bytes.subarray(0, 12), { authTagLength: 16 });
    decipher.setAAD(Buffer.from(credentialsKeyContext.purpose));
    decipher.setAuthTag(bytes.subarray(bytes.length - 16));
    return Buffer.concat([decipher.update(bytes.subarray(12, bytes.length - 16)), decipher.final()]);
  }
}

/** The data keys of this deployment: KMS when a key is named, else the local key. */
export function credentialsKey(options: { kmsKeyArn?: string | undefined; localKey?: string | undefined }) {
  if (options.kmsKeyArn) return new KmsDataKeys(options.kmsKeyArn);
  if (!options.localKey)
    throw new Error('Set CREDENTIALS_KEY_ARN (AWS) or LOCAL_ENCRYPTION_KEY (local stack)');
  return new LocalDataKeys(options.localKey);
}
