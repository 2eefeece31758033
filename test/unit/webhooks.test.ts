import { describe, expect, it } from 'vitest';
import { backoffSeconds } from '#shared/deposits/background/webhooks';

describe('webhook retry backoff', () => {
  it('doubles from the base and stops at an hour', () => {
    expect([1, 2, 3, 4, 5].map((attempt) => backoffSeconds(attempt, 2))).toEqual([2, 4, 8, 16, 32]);
    expect(backoffSeconds(20, 2)).toBe(3_600);
    expect(backoffSeconds(3, 0)).toBe(0);
  });

  it('keeps retrying for hours over the notify queue tries, so a receiver down a while misses nothing', async () => {
    const { queues } = await import('#shared/topology');
    const tries = queues.notify.maxReceiveCount;
    const waited = Array.from({ length: tries - 1 }, (_, i) => backoffSeconds(i + 1, 2)).reduce(
      (a, b) => a + b,
    );

    expect(waited).toBeGreaterThan(6 * 3_600);
  });
});
