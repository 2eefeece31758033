import { describe, expect, it } from 'vitest';
import { backoffSeconds } from '#shared/deposits/webhooks';

describe('webhook retry backoff', () => {
  it('doubles from the base and stops at 15 minutes', () => {
    expect([1, 2, 3, 4, 5].map((attempt) => backoffSeconds(attempt, 2))).toEqual([2, 4, 8, 16, 32]);
    expect(backoffSeconds(20, 2)).toBe(900);
    expect(backoffSeconds(3, 0)).toBe(0);
  });
});
