/**
 * Polls `check` until it gives a value, failing after `timeoutMs`: at once, then after a pause that
 * starts at 100 ms and doubles up to 500 ms. A short wait is seen within a tenth of a second; a long
 * one reads the stack, which the files running side by side share, twice a second: each read costs
 * it a gateway request and a DynamoDB read (docs/runs/npm-test-2026-11-28.md counts them).
 */
export async function eventually<T>(check: () => Promise<T | undefined>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (let pause = 100; ; pause = Math.min(500, pause * 2)) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, pause));
  }
}
