/**
 * The chaos harness, smaller: 100 deposits over every sandbox bank with every kind of fault, on a
 * local stack of its own (not the e2e project's), from a fixed seed. The audit's findings are the
 * assertion: each names its deposits, and the seed replays the run (`CHAOS_SEED=... npm run chaos`).
 */
import { describe, expect, it } from 'vitest';
import { runChaos } from './harness.ts';

const SEED = 20_260_101;

describe('deposits under chaos', () => {
  it('100 deposits with faults of every kind: the audit finds nothing', async () => {
    // Every user at once (28): a user started late, when another ended, ended the run late.
    const report = await runChaos({ deposits: 100, seed: SEED, usersAtOnce: 100 });

    process.stdout.write(`${JSON.stringify(report.figures, null, 2)}\n`);
    expect(report.deposits).toBe(100);
    expect(report.failures).toEqual([]);
    expect(report.passed).toBe(true);
  });
});
