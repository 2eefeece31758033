/**
 * Reading an HTTP answer's body within a bound: the provider's (`readCapped`: at most so many bytes,
 * else an error, the rest never pulled) and a webhook receiver's (`discardBody`: consumed, so that
 * the connection goes back to the pool, and never more than a little of it read).
 */

export class BodyTooLarge extends Error {
  constructor(readonly maxBytes: number) {
    super(`a body over ${maxBytes} bytes`);
    this.name = 'BodyTooLarge';
  }
}

/** The body as text, when it holds at most `maxBytes`; else `BodyTooLarge`, the stream cancelled. */
export async function readCapped(response: Response, maxBytes: number): Promise<string> {
  const declared = Number(response.headers.get('content-length') ?? Number.NaN);
  if (declared > maxBytes) {
    await response.body?.cancel().catch(() => undefined);
    throw new BodyTooLarge(maxBytes);
  }
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw new BodyTooLarge(maxBytes);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * Consumes a body nobody reads: up to `maxBytes` of it read and dropped (a short answer, read to its
 * end, leaves the connection reusable), the rest cancelled. Never throws: the answer's status is
 * what counts.
 */
export async function discardBody(response: Response, maxBytes = 64 * 1024): Promise<void> {
  if (!response.body) return;
  const reader = response.body.getReader();
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      size += value.byteLength;
      if (size > maxBytes) {
        await reader.cancel();
        return;
      }
    }
  } catch {
    await reader.cancel().catch(() => undefined);
  }
}
