/**
 * The previous sealed form, read for one release: the AWS Encryption SDK's message, as the vault
 * before issue 22 wrote it (`@aws-crypto/client-node` 4.2.4: message format 2, algorithm suite
 * 0x0478 = AES-256-GCM, HKDF-SHA512, key commitment, no signature; framed at 4,096 bytes; the
 * encryption context `{ depositId }`), base64, with no marker. Only that is read, and checked as the
 * SDK checks it: the context names the deposit, the derived key's commitment matches, the header's
 * tag and every frame's tag verify, the frames come in order and nothing follows the last.
 * Format: https://docs.aws.amazon.com/encryption-sdk/latest/developer-guide/message-format.html
 *
 * The data key comes from `DataKeys.unwrapPrevious`, which knows the keyrings that wrapped it.
 * Drop this module with the next change of the sealed form (docs/deploying.md says when).
 */
import { createDecipheriv, hkdfSync, timingSafeEqual } from 'node:crypto';

/** A data key as the Encryption SDK stored it in its message: who wrapped it, how, and the bytes. */
export interface EncryptedDataKey {
  providerId: string;
  providerInfo: Buffer;
  encrypted: Buffer;
}

export type UnwrapPrevious = (
  keys: readonly EncryptedDataKey[],
  context: Readonly<Record<string, string>>,
) => Promise<Uint8Array>;

const version = 2;
const suite = 0x0478;
const framed = 2;
const finalFrame = 0xffffffff;
const notThisForm = () => new Error('sealed credentials are not in a form this vault reads');

/** The message's bytes, read in order; reading past the end is a message this vault did not write. */
class Cursor {
  offset = 0;
  constructor(readonly bytes: Buffer) {}
  take(length: number): Buffer {
    if (this.offset + length > this.bytes.length) throw notThisForm();
    this.offset += length;
    return this.bytes.subarray(this.offset - length, this.offset);
  }
  u8 = () => this.take(1).readUInt8(0);
  u16 = () => this.take(2).readUInt16BE(0);
  u32 = () => this.take(4).readUInt32BE(0);
  /** A field of a 2-byte length and its bytes. */
  field = () => this.take(this.u16());
  get done() {
    return this.offset === this.bytes.length;
  }
}

/** The encryption context as the SDK serialises it: a count, then each key and value, sorted. */
export function serializeContext(context: Readonly<Record<string, string>>): Buffer {
  const pairs = Object.entries(context).sort(([a], [b]) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  if (pairs.length === 0) return Buffer.alloc(0);
  const parts = pairs.flatMap((pair) => pair.map((text) => Buffer.from(text, 'utf8')));
  return Buffer.concat([u16(pairs.length), ...parts.flatMap((part) => [u16(part.length), part])]);
}

function parseContext(bytes: Buffer): Record<string, string> {
  if (bytes.length === 0) return {};
  const cursor = new Cursor(bytes);
  const context: Record<string, string> = {};
  for (let count = cursor.u16(); count > 0; count -= 1) {
    context[cursor.field().toString('utf8')] = cursor.field().toString('utf8');
  }
  if (!cursor.done) throw notThisForm();
  return context;
}

function u16(value: number) {
  const bytes = Buffer.alloc(2);
  bytes.writeUInt16BE(value);
  return bytes;
}

function u32(value: number) {
  const bytes = Buffer.alloc(4);
  bytes.writeUInt32BE(value);
  return bytes;
}

function gcmOpen(key: Buffer, iv: Buffer, aad: Buffer, text: Buffer, tag: Buffer): Buffer {
  const decipher = createDecipheriv('aes-256-gcm', key, iv);
  decipher.setAAD(aad);
  decipher.setAuthTag(tag);
  return Buffer.concat([decipher.update(text), decipher.final()]);
}

/** The plaintext of a message sealed the previous way for `depositId`, or an error. */
export async function openEncryptionSdkMessage(
  sealed: string,
  depositId: string,
  unwrapPrevious: UnwrapPrevious,
): Promise<Buffer> {
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(sealed)) throw notThisForm();
  const cursor = new Cursor(Buffer.from(sealed, 'base64'));
  if (cursor.u8() !== version || cursor.u16() !== suite) throw notThisForm();
  const messageId = cursor.take(32);
  const context = parseContext(cursor.field());
  const keys = Array.from({ length: cursor.u16() }, () => ({
    providerId: cursor.field().toString('utf8'),
    providerInfo: cursor.field(),
    encrypted: cursor.field(),
  }));
  if (cursor.u8() !== framed) throw notThisForm();
  const frameLength = cursor.u32();
  const commitment = cursor.take(32);
  const header = cursor.bytes.subarray(0, cursor.offset);
  const headerTag = cursor.take(16);
  if (keys.length === 0 || frameLength === 0) throw notThisForm();
  // The previous vault bound each message to its deposit by this context, and only this.
  if (Object.keys(context).length !== 1 || context.depositId !== depositId) {
    throw new Error('sealed credentials belong to another deposit');
  }

  const dataKey = await unwrapPrevious(keys, context);
  const key = Buffer.from(
    hkdfSync('sha512', dataKey, messageId, Buffer.concat([u16(suite), Buffer.from('DERIVEKEY')]), 32),
  );
  const expected = Buffer.from(hkdfSync('sha512', dataKey, messageId, Buffer.from('COMMITKEY'), 32));
  if (!timingSafeEqual(expected, commitment)) {
    throw new Error('sealed credentials belong to another deposit, or to another key');
  }
  gcmOpen(key, Buffer.alloc(12), header, Buffer.alloc(0), headerTag);

  const plaintext: Buffer[] = [];
  for (let sequence = 1; ; sequence += 1) {
    const last =
      cursor.bytes.length - cursor.offset >= 4 && cursor.bytes.readUInt32BE(cursor.offset) === finalFrame;
    if (last) cursor.u32();
    if (cursor.u32() !== sequence) throw notThisForm();
    const iv = cursor.take(12);
    const length = last ? cursor.u32() : frameLength;
    if (length > frameLength) throw notThisForm();
    const text = cursor.take(length);
    const tag = cursor.take(16);
    const content = last ? 'AWSKMSEncryptionClient Final Frame' : 'AWSKMSEncryptionClient Frame';
    const size = Buffer.alloc(8);
    size.writeBigUInt64BE(BigInt(length));
    const aad = Buffer.concat([messageId, Buffer.from(content), u32(sequence), size]);
    plaintext.push(gcmOpen(key, iv, aad, text, tag));
    if (last) break;
  }
  if (!cursor.done) throw notThisForm();
  return Buffer.concat(plaintext);
}
