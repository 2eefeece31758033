/**
 * Secrets at rest (the user's provider credentials, the caller's answers to the bank's questions):
 * envelope encryption with a data key cached per function instance.
 *
 * A data key comes from KMS (`GenerateDataKey` on `CREDENTIALS_KEY_ARN`; on the local stack, one
 * wrapped by `LOCAL_ENCRYPTION_KEY`) and seals many deposits' secrets: at most `dataKeyUses`
 * sealings, for at most `dataKeyMaxAgeMs`. An instance that opens keeps the data keys it unwrapped
 * no longer, so a step opens without a KMS request but for the first deposit of each data key it
 * meets. What the AWS Encryption SDK gave, kept:
 *   - each sealing is bound to its deposit and its purpose: its own key, derived from the data key
 *     by HKDF-SHA512 with a fresh 32-byte salt, the purpose and the deposit id, which are in the
 *     AES-256-GCM additional data too; opened under another deposit's id, or as the other purpose
 *     (answers as credentials), it fails;
 *   - key commitment: the derivation also gives a commitment that the sealed text carries and the
 *     opener checks, so no sealed text opens under two keys;
 *   - only a whole 16-byte tag: a body shorter than it is refused before any key is asked, and GCM
 *     is told the tag's length (it would take a 4-byte one);
 *   - the data key is unwrapped by KMS only with this vault's encryption context
 *     (`credentialsKeyContext`), which the key's policy requires.
 * Each data key is known by a short id of its wrapped form (`dataKeyOf`, no secret in it): the
 * sealed credentials' item records it and the vault tells each key it makes or unwraps
 * (`onDataKey`, logged), so that an incident on one key, or one instance, is scoped to its items.
 *
 * The sealed form: `v2.<wrapped data key>.<salt>.<iv>.<commitment>.<ciphertext and tag>`, each part
 * base64url. Nothing in it is secret without the key; no secret goes into a message.
 *
 * Forms: every sealed text names its form by the marker before its first `.`; the opener reads by
 * it. New sealings take the current form (`v2`). Deposits in flight at a deploy hold what the release
 * before sealed, so the one form before is read too, for one release: `v1`, the same but for the
 * purpose, which it did not bind (it opens as either). Any other marker is refused as a form this
 * release does not read, before any key is asked. The next change of form makes `v2` the previous
 * one and drops `v1`'s reader (docs/deploying.md, "Redeploying: the sealed form").
 */
import {
  createCipheriv,
  createDecipheriv,
  createHash,
  hkdfSync,
  randomBytes,
  timingSafeEqual,
} from 'node:crypto';
import type { CredentialOpener, CredentialSealer, SealPurpose } from '#shared/deposits/ports/provider';

/** The encryption context of every data key: the credentials key's policy requires it. */
export const credentialsKeyContext = { purpose: 'deposit-credentials' } as const;

/** Where data keys come from: KMS in AWS, a local key on the local stack. */
export interface DataKeys {
  /** A new data key, in the clear and wrapped (to be stored beside what it seals). */
  generate(): Promise<{ plaintext: Uint8Array; wrapped: Uint8Array }>;
  /** The data key a wrapped one stands for. */
  unwrap(wrapped: Uint8Array): Promise<Uint8Array>;
}

/** How long and how much one data key serves, at most: sealing, and held to open. */
export const dataKeyUses = 1_000;
export const dataKeyMaxAgeMs = 60_000;
/** Unwrapped data keys an instance keeps at most (the least recently used go first). */
const openedKeysKept = 64;
/** GCM's whole tag: no shorter one is taken. */
const tagBytes = 16;

/** How each form read binds a sealing: its key's HKDF info and its additional data. */
const forms = {
  v2: {
    info: (purpose: SealPurpose, depositId: string) => `v2 ${purpose} ${depositId}`,
    aad: (purpose: SealPurpose, wrapped: string, depositId: string) =>
      `v2.${purpose}.${wrapped}.${depositId}`,
  },
  // The form sealed before the purpose was bound: credentials and answers alike.
  v1: {
    info: (_purpose: SealPurpose, depositId: string) => `v1 credentials ${depositId}`,
    aad: (_purpose: SealPurpose, wrapped: string, depositId: string) => `v1.${wrapped}.${depositId}`,
  },
} as const;
type Form = keyof typeof forms;
/** The form new sealings take, named by the marker that leads the text. */
const current: Form = 'v2';

const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64url');
const unb64 = (text: string) => Buffer.from(text, 'base64url');

/** The id a data key is known by: 12 bytes of the SHA-256 of its wrapped form, base64url. */
const idOfWrapped = (wrapped: string) =>
  b64(createHash('sha256').update(unb64(wrapped)).digest().subarray(0, 12));

/** The id of the data key a sealed text was sealed with (in a form that names one), else undefined. */
export function dataKeyOf(sealed: string): string | undefined {
  const [marker, wrapped] = sealed.split('.');
  return marker !== undefined && marker in forms && wrapped ? idOfWrapped(wrapped) : undefined;
}

/** The deposit's own key and the commitment to it, from the data key, the salt and what it binds. */
function derive(dataKey: Uint8Array, salt: Uint8Array, info: string) {
  const bytes = Buffer.from(hkdfSync('sha512', dataKey, salt, info, 64));
  return { key: bytes.subarray(0, 32), commitment: bytes.subarray(32) };
}

/**
 * The form a sealed text names: the marker before its first `.`, or none. Only a marker of the
 * shape `v<n>` is named back in an error.
 */
function markerOf(sealed: string): string | undefined {
  const dot = sealed.indexOf('.');
  return dot < 0 ? undefined : sealed.slice(0, dot);
}

function unknownForm(marker: string): Error {
  const named = /^v\d{1,4}$/.test(marker) ? `format ${marker}` : 'an unknown format';
  return new Error(`sealed credentials are in ${named}, which this release does not read`);
}

const notAForm = () => new Error('sealed credentials are not in a form this vault reads');

interface HeldKey {
  plaintext: Uint8Array;
  wrapped: string;
  since: number;
  uses: number;
}

export interface VaultOptions {
  /** The time (epoch ms) a data key's age is counted in. */
  now?: () => number;
  /** Sealings per data key (`dataKeyUses`). */
  usesPerKey?: number;
  /** Told of each data key made (to seal) or unwrapped (to open), by its id: for the log. */
  onDataKey?: (dataKey: string, how: 'made' | 'unwrapped') => void;
}

export class CredentialVault implements CredentialSealer, CredentialOpener {
  private sealing: Promise<HeldKey> | undefined;
  private readonly opened = new Map<string, { key: Promise<Uint8Array>; since: number }>();
  private readonly now: () => number;
  private readonly usesPerKey: number;

  constructor(
    private readonly dataKeys: DataKeys,
    private readonly options: VaultOptions = {},
  ) {
    this.now = options.now ?? Date.now;
    this.usesPerKey = options.usesPerKey ?? dataKeyUses;
  }

  async seal(purpose: SealPurpose, depositId: string, secret: unknown): Promise<string> {
    const held = await this.sealingKey();
    const salt = randomBytes(32);
    const iv = randomBytes(12);
    const form = forms[current];
    const { key, commitment } = derive(held.plaintext, salt, form.info(purpose, depositId));
    const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: tagBytes });
    cipher.setAAD(Buffer.from(form.aad(purpose, held.wrapped, depositId)));
    const body = Buffer.concat([
      cipher.update(JSON.stringify(secret), 'utf8'),
      cipher.final(),
      cipher.getAuthTag(),
    ]);
    return [current, held.wrapped, b64(salt), b64(iv), b64(commitment), b64(body)].join('.');
  }

  /** Opens what this release seals and what the one before sealed; refuses any other form. */
  async open<T>(purpose: SealPurpose, depositId: string, sealed: string): Promise<T> {
    const marker = markerOf(sealed);
    if (marker === undefined) throw notAForm();
    if (!(marker in forms)) throw unknownForm(marker);
    const plaintext = await this.openForm(marker as Form, purpose, depositId, sealed);
    return JSON.parse(plaintext.toString('utf8')) as T;
  }

  /** `<form>.<wrapped data key>.<salt>.<iv>.<commitment>.<ciphertext and tag>`. */
  private async openForm(form: Form, purpose: SealPurpose, depositId: string, sealed: string) {
    const [, wrapped, salt, iv, commitment, body, ...rest] = sealed.split('.');
    if (!wrapped || !salt || !iv || !commitment || !body || rest.length > 0) throw notAForm();
    const text = unb64(body);
    const nonce = unb64(iv);
    if (text.length < tagBytes)
      throw new Error('sealed credentials refused: the body is shorter than its tag');
    if (nonce.length !== 12) throw notAForm();
    const binding = forms[form];
    const derived = derive(await this.openingKey(wrapped), unb64(salt), binding.info(purpose, depositId));
    const claimed = unb64(commitment);
    if (claimed.length !== derived.commitment.length || !timingSafeEqual(claimed, derived.commitment)) {
      throw new Error('sealed credentials belong to another deposit, another purpose, or another key');
    }
    const decipher = createDecipheriv('aes-256-gcm', derived.key, nonce, { authTagLength: tagBytes });
    decipher.setAAD(Buffer.from(binding.aad(purpose, wrapped, depositId)));
    decipher.setAuthTag(text.subarray(text.length - tagBytes));
    return Buffer.concat([decipher.update(text.subarray(0, text.length - tagBytes)), decipher.final()]);
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
    this.options.onDataKey?.(idOfWrapped(held.wrapped), 'made');
    this.remember(held.wrapped, Promise.resolve(plaintext), held.since);
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
    key.then(
      () => this.options.onDataKey?.(idOfWrapped(wrapped), 'unwrapped'),
      () => this.opened.delete(wrapped),
    );
    this.remember(wrapped, key, this.now());
    return key;
  }

  private remember(wrapped: string, key: Promise<Uint8Array>, since: number) {
    this.opened.delete(wrapped);
    this.opened.set(wrapped, { key, since });
    while (this.opened.size > openedKeysKept) {
      const oldest = this.opened.keys().next().value;
      if (oldest === undefined) break;
      this.opened.delete(oldest);
    }
  }
}
