/**
 * The chaos audit measures a follower's wait across the local clock's jumps: from where the jump that
 * passed over its instant landed, in real time. (Pure: no stack.)
 */
import { describe, expect, it } from 'vitest';
import { audit } from './audit.ts';
import { cleanOutcome, withSource } from './audit-world.ts';
import { inLocalTime, realDelay } from './clock-jumps.ts';

describe('the chaos audit', () => {
  it("measures a follower whose source's instant the clock jumped over from where the jump landed", () => {
    const input = cleanOutcome();
    withSource(input, 3_600);
    input.clockJumps = [{ from: 450_000, to: 500_000 + 3_595_000 }];
    expect(audit(input).failures).toEqual([]);
  });

  it("measures it from where the later jump landed when a later one passed over the instant, and not from the first's", () => {
    const jumps = [
      { from: 100_000, to: 200_000 },
      { from: 450_000, to: 500_000 + 3_595_000 },
    ];
    const input = cleanOutcome();
    withSource(input, 3_600);
    input.clockJumps = jumps;
    expect(audit(input).failures).toEqual([]);
    const late = cleanOutcome();
    withSource(late, 3_600);
    late.clockJumps = jumps.slice(0, 1);
    expect(audit(late).failures.join('\n')).toMatch(/waited for a source's wake-up past its instant/);
  });

  it('places a real-time instant in the local clock past every jump before it, and none after', () => {
    const jumps = [
      { from: 100_000, to: 200_000 },
      { from: 250_000, to: 300_000 },
    ];
    expect(inLocalTime(50_000, jumps)).toBe(50_000);
    // Past the first (100 s ahead), then past the second's start in local time (150 + 100 >= 250).
    expect(inLocalTime(150_000, jumps)).toBe(300_000);
    expect(inLocalTime(120_000, jumps)).toBe(220_000);
  });

  it('measures a delay in real time: a jump over the instant counts from where it landed, one after the instant not at all', () => {
    const jumps = [
      { from: 100_000, to: 200_000 },
      { from: 250_000, to: 300_000 },
    ];
    // Jumped over by the first: came at 200 s, moved 5 s after.
    expect(realDelay(150_000, 205_000, jumps)).toBe(5_000);
    // Due at 240 s, the second jump (another's wait) came before its move at 302 s: 12 s of real time.
    expect(realDelay(240_000, 302_000, jumps)).toBe(12_000);
    // Between the jumps: the local time is the real time.
    expect(realDelay(210_000, 220_000, jumps)).toBe(10_000);
    expect(realDelay(150_000, 205_000, [])).toBe(55_000);
  });

  it("passes a follower due when another's wait was jumped over, which moved after that jump", () => {
    const input = cleanOutcome();
    withSource(input, 62);
    // Its instant at 500 s; a jump of 61 s at 501 s, for another deposit's wait.
    input.clockJumps = [{ from: 501_000, to: 562_000 }];
    expect(audit(input).failures).toEqual([]);
    const without = cleanOutcome();
    withSource(without, 62);
    expect(audit(without).failures.join('\n')).toMatch(/moved 62 s after its source's instant/);
  });
});
