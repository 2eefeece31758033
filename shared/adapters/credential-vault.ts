/**
 * Credentials at rest: envelope encryption with a data key cached per function instance.
 *
 * A data key comes from KMS (`GenerateDataKey` on `CREDENTIALS_KEY_ARN`; on the local stack, one
 * wrapped by `LOCAL_ENCRYPTION_KEY`) and seals many deposits' credentials: at most
 * `dataKeyUses` seals, for at most `dataKeyMaxAgeMs`. An instance that opens keeps the data keys it
 * unwrapped for as long, so a step opens credentials without a KMS request, but for the first
 * deposit of each data key it meets. What the AWS Encryption SDK gave, kept:
 *   - each sealing is bound to its deposit: its own key, derived from the data key by HKDF-SHA512
 *     with a fresh 32-byte salt and the deposit id, and the deposit id in the AES-256-GCM additional
 *     data; opened under another deposit's id it fails;
 *   - key commitment: the derivation also gives a commitment that the sealed text carries and the
 *     opener checks, so no sealed text opens under two keys;
 *   - the data key is unwrapped by KMS only with this vault's encryption context
 *     (`credentialsKeyContext`), which the key's policy requires.
 * The sealed form: `v1.<wrapped data key>.<salt>.<iv>.<commitment>.<ciphertext and tag>`, each part
 * base64url. Nothing in it is secret without the key; no secret goes into a message.
 *
 * Forms: every sealed text names its form by the marker before its first `.`; the opener reads by
 * it. New sealings take the current form (`v1`). Deposits in flight at a deploy hold what the release
 * before sealed, so the one form before is read too, for one release: the AWS Encryption SDK's
 * message of the vault before issue 22, which has no marker (base64 holds no `.`;
 * `encryption-sdk-message.ts`). Any other marker is refused as a form this release does not read,
 * before any key is asked. The next change of form makes `v1` the previous one and drops the SDK's
 * reader (docs/deploying.md, "Redeploying: the sealed form").
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';
import type { CredentialOpener, CredentialSealer } from '#shared/deposits/ports';
import { type EncryptedDataKey, openEncryptionSdkMessage } from './encryption-sdk-message.ts';

/** The encryption context of every data key: the credentials key's policy requires it. */
export const credentialsKeyContext = { purpose: 'deposit-credentials' } as const;

/** Where data keys come from: KMS in AWS, a local key on the local stack. */
export interface DataKeys {
  /** A new data key, in the clear and wrapped (to be stored beside what it seals). */
  generate(): Promise<{ plaintext: Uint8Array; wrapped: Uint8Array }>;
  /** The data key a wrapped one stands for. */
  unwrap(wrapped: Uint8Array): Promise<Uint8Array>;
  /**
   * The data key of a text sealed the previous way (the Encryption SDK's message): the one of `keys`
   * this key wrapped, opened with the message's encryption `context`. Goes with that form.
   */
  unwrapPrevious(
    keys: readonly EncryptedDataKey[],
    context: Readonly<Record<string, string>>,
  ): Promise<Uint8Array>;
}

/** How long and how much one data key serves, at most. */
export const dataKeyUses = 10_000;
export const dataKeyMaxAgeMs = 5 * 60_000;
/** Unwrapped data keys an instance keeps at most (the least recently used go first). */
const openedKeysKept = 64;

/** The form new sealings take, named by the marker that leads the text. */
const format = 'v1';
const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64url');
const unb64 = (text: string) => Buffer.from(text, 'base64url');

/** The deposit's own key and the commitment to it, from the data key, the salt and the deposit id. */
function derive(dataKey: Uint8Array, salt: Uint8Array, depositId: string) {
  const bytes = Buffer.from(hkdfSync('sha512', dataKey, salt, `v1 credentials ${depositId}`, 64));
  return { key: bytes.subarray(0, 32), commitment: bytes.subarray(32) };
}

/**
 * The form a sealed text names: the marker before its first `.`, or none (the previous form, whose
 * base64 holds no `.`). Only a marker of the shape `v<n>` is named back in an error.
 */
function markerOf(sealed: string): string | undefined {
  const dot = sealed.indexOf('.');
  return dot < 0 ? undefined : sealed.slice(0, dot);
}

function unknownForm(marker: string): Error {
  const named = /^v\d{1,4}$/.test(marker) ? `format ${marker}` : 'an unknown format';
  return new Error(`sealed credentials are in ${named}, which this release does not read`);
}

interface HeldKey {
  plaintext: Uint8Array;
  wrapped: string;
  since: number;
  uses: number;
}

export class CredentialVault implements CredentialSealer, CredentialOpener {
  private sealing: Promise<HeldKey> | undefined;
  private readonly opened = new Map<string, { key: Promise<Uint8Array>; since: number }>();

  constructor(
    private readonly dataKeys: DataKeys,
    private readonly now: () => number = Date.now,
    private readonly usesPerKey = dataKeyUses,
  ) {}

  async seal(depositId: string, secret: unknown): Promise<string> {
    const held = await this.sealingKey();
    const salt = randomBytes(32);
    const iv = randomBytes(12);
    const { key, commitment } = derive(held.plaintext, salt, depositId);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    cipher.setAAD(Buffer.from(`v1.${held.wrapped}.${depositId}`));
    const body = Buffer.concat([
      cipher.update(JSON.stringify(secret), 'utf8'),
      cipher.final(),
      cipher.getAuthTag(),
    ]);
    return [format, held.wrapped, b64(salt), b64(iv), b64(commitment), b64(body)].join('.');
  }

  /** Opens what this release seals and what the one before sealed; refuses any other form. */
  async open<T>(depositId: string, sealed: string): Promise<T> {
    const marker = markerOf(sealed);
    if (marker === format) return JSON.parse((await this.openV1(depositId, sealed)).toString('utf8')) as T;
    if (marker !== undefined) throw unknownForm(marker);
    const plaintext = await openEncryptionSdkMessage(sealed, depositId, (keys, context) =>
      this.dataKeys.unwrapPrevious(keys, context),
    );
    return JSON.parse(plaintext.toString('utf8')) as T;
  }

  /** The current form: `v1.<wrapped data key>.<salt>.<iv>.<commitment>.<ciphertext and tag>`. */
  private async openV1(depositId: string, sealed: string): Promise<Buffer> {
    const [, wrapped, salt, iv, commitment, body, ...rest] = sealed.split('.');
    if (!wrapped || !salt || !iv || !commitment || !body || rest.length > 0) {
      throw new Error('sealed credentials are not in a form this vault reads');
    }
    const derived = derive(await this.openingKey(wrapped), unb64(salt), depositId);
    const claimed = unb64(commitment);
    if (claimed.length !== derived.commitment.length || !timingSafeEqual(claimed, derived.commitment)) {
      throw new Error('sealed credentials belong to another deposit, or to another key');
    }
    const text = unb64(body);
    const decipher = createDecipheriv('aes-256-gcm', derived.key, unb64(iv));
    decipher.setAAD(Buffer.from(`v1.${wrapped}.${depositId}`));
    decipher.setAuthTag(text.subarray(text.length - 16));
    return Buffer.concat([decipher.update(text.subarray(0, text.length - 16)), decipher.final()]);
  }

  /** The data key new sealings use: the held one while it has uses and age left, else a new one. */
  private async sealingKey(): Promise<HeldKey> {
    const pending = this.sealing;
    const held = await pending?.catch(() => undefined);
    if (held && held.uses < this.usesPerKey && this.now() - held.since < dataKeyMaxAgeMs) {
      held.uses += 1;
      return held;
    }
    // Spent, too old, failed or none: one new key, which every sealing waiting now shares.
    if (this.sealing === pending || this.sealing === undefined) this.sealing = this.newSealingKey();
    const next = this.sealing;
    const fresh = await next;
    fresh.uses += 1;
    return fresh;
  }

  private async newSealingKey(): Promise<HeldKey> {
    const { plaintext, wrapped } = await this.dataKeys.generate();
    const held = { plaintext, wrapped: b64(wrapped), since: this.now(), uses: 0 };
    this.remember(held.wrapped, Promise.resolve(plaintext));
    return held;
  }

  /** The data key a sealed text names: unwrapped once, then kept for its age. */
  private openingKey(wrapped: string): Promise<Uint8Array> {
    const kept = this.opened.get(wrapped);
    if (kept && this.now() - kept.since < dataKeyMaxAgeMs) {
      this.opened.delete(wrapped);
      this.opened.set(wrapped, kept);
      return kept.key;
    }
    const key = this.dataKeys.unwrap(unb64(wrapped));
    // A failed unwrap is not kept: the next open asks again.
    key.catch(() => this.opened.delete(wrapped));
    this.remember(wrapped, key);
    return key;
  }

  private remember(wrapped: string, key: Promise<Uint8Array>) {
    this.opened.delete(wrapped);
    this.opened.set(wrapped, { key, since: this.now() });
    while (this.opened.size > openedKeysKept) {
      const oldest = this.opened.keys().next().value;
      if (oldest === undefined) break;
      this.opened.delete(oldest);
    }
  }
}
