/**
 * Polls `check` until it gives a value, failing after `timeoutMs`: at once, then after a pause that
 * starts at 50 ms and doubles up to 250 ms. A short wait is seen as soon as before; a long one reads
 * the stack, which the files running side by side share, at two fifths of the rate of a poll every
 * 100 ms.
 */
export async function eventually<T>(check: () => Promise<T | undefined>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (let pause = 50; ; pause = Math.min(250, pause * 2)) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, pause));
  }
}
