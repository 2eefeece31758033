/**
 * Envelope encryption of credentials at rest, with the AWS Encryption SDK: a KMS key in AWS
 * (`CREDENTIALS_KEY_ARN`), a local AES-256 key on the local stack (`LOCAL_ENCRYPTION_KEY`). Each
 * ciphertext is bound to its deposit by the encryption context.
 */
import {
  AlgorithmSuiteIdentifier,
  buildClient,
  CommitmentPolicy,
  type KeyringNode,
  KmsKeyringNode,
  RawAesKeyringNode,
  RawAesWrappingSuiteIdentifier,
} from '@aws-crypto/client-node';
import type { CredentialOpener, CredentialSealer } from '#shared/deposits/ports';

const { encrypt, decrypt } = buildClient(CommitmentPolicy.REQUIRE_ENCRYPT_REQUIRE_DECRYPT);

// Committing key, no signature: the readers and writers are the same trusted service.
const suiteId = AlgorithmSuiteIdentifier.ALG_AES256_GCM_IV12_TAG16_HKDF_SHA512_COMMIT_KEY;

export function vaultKeyring(options: {
  kmsKeyArn?: string | undefined;
  localKey?: string | undefined;
}): KeyringNode {
  if (options.kmsKeyArn) return new KmsKeyringNode({ generatorKeyId: options.kmsKeyArn });
  if (!options.localKey)
    throw new Error('Set CREDENTIALS_KEY_ARN (AWS) or LOCAL_ENCRYPTION_KEY (local stack)');
  // The SDK wants a buffer of its own, not a slice of Node's shared pool.
  const key = Uint8Array.from(Buffer.from(options.localKey, 'base64'));
  if (key.length !== 32) throw new Error('LOCAL_ENCRYPTION_KEY must be 32 bytes, base64');
  return new RawAesKeyringNode({
    keyName: 'local-credentials-key',
    keyNamespace: 'bank-data-and-payments',
    unencryptedMasterKey: key,
    wrappingSuite: RawAesWrappingSuiteIdentifier.AES256_GCM_IV12_TAG16_NO_PADDING,
  });
}

export class EncryptionSdkVault implements CredentialSealer, CredentialOpener {
  constructor(private readonly keyring: KeyringNode) {}

  async seal(depositId: string, secret: unknown): Promise<string> {
    const { result } = await encrypt(this.keyring, JSON.stringify(secret), {
      encryptionContext: { depositId },
      suiteId,
    });
    return result.toString('base64');
  }

  async open<T>(depositId: string, sealed: string): Promise<T> {
    const { plaintext, messageHeader } = await decrypt(this.keyring, Buffer.from(sealed, 'base64'));
    if (messageHeader.encryptionContext.depositId !== depositId) {
      throw new Error('sealed credentials belong to another deposit');
    }
    return JSON.parse(plaintext.toString('utf8')) as T;
  }
}
