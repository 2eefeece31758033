/**
 * `npm run chaos`: the chaos harness of the deposits (`harness.ts`) from the command line.
 *
 *   CHAOS_DEPOSITS       how many deposits (default 1000)
 *   CHAOS_SEED           the seed of every random choice (default: a fresh one, printed); the same
 *                        seed replays the same plan and choices
 *   CHAOS_USERS_AT_ONCE  users driven at the same time (default 16)
 *   CHAOS_LOG_FILE       where the run's captured output goes (default: the temporary directory)
 *   CHAOS_DIALECT        the dialect the orchestrator speaks to the provider: `spec` (default) or
 *                        `dapi-v2` (the stack's PROVIDER_DIALECT)
 *
 * Prints the figures and the seed; exits 1 when the audit fails, naming the deposits.
 */
import '#infra/local/xray-manual-mode';

import { type DialectName, dialectNames } from '#shared/provider/interface/dialects';
import { runChaos } from './harness.ts';
import { seedFrom } from './random.ts';

const deposits = Number(process.env.CHAOS_DEPOSITS ?? 1000);
if (!Number.isInteger(deposits) || deposits < 1) throw new Error('CHAOS_DEPOSITS must be a positive integer');
const seed = seedFrom(process.env.CHAOS_SEED);
const usersAtOnce = process.env.CHAOS_USERS_AT_ONCE ? Number(process.env.CHAOS_USERS_AT_ONCE) : undefined;
const dialect = process.env.CHAOS_DIALECT || dialectNames[0];
const isDialect = (name: string): name is DialectName => (dialectNames as readonly string[]).includes(name);
if (!isDialect(dialect))
  throw new Error(`CHAOS_DIALECT must be one of ${dialectNames.join(', ')}, not ${JSON.stringify(dialect)}`);

const report = await runChaos({
  deposits,
  seed,
  dialect,
  ...(usersAtOnce ? { usersAtOnce } : {}),
  ...(process.env.CHAOS_LOG_FILE ? { logFile: process.env.CHAOS_LOG_FILE } : {}),
});

const lines = [
  '',
  `Chaos run, seed ${report.seed}, the ${report.dialect} dialect (replay: CHAOS_SEED=${report.seed} CHAOS_DEPOSITS=${report.deposits} CHAOS_DIALECT=${report.dialect} npm run chaos)`,
  JSON.stringify(report.figures, null, 2),
  `Captured output (handlers' logs): ${report.logFile}`,
  '',
  report.passed
    ? `AUDIT PASSED: ${report.deposits} deposits in ${(report.durationMs / 1000).toFixed(1)} s, seed ${report.seed}, ${report.dialect}`
    : `AUDIT FAILED, seed ${report.seed}, ${report.dialect}:\n${report.failures.map((failure) => `  - ${failure}`).join('\n')}`,
  '',
];
process.stdout.write(lines.join('\n'));
process.exit(report.passed ? 0 : 1);
