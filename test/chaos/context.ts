/**
 * What every part of a chaos run shares: the stack's settings, the run's counters and context, and
 * two small tools.
 */
import type { LocalStack } from '#infra/local/stack';
import { type DialectName, dialects } from '#shared/provider/interface/dialects';
import { testEnv } from '../support/local-stack.ts';
import type { DepositRun, SourceRun } from './audit.ts';
import type { Clients } from './clients.ts';
import type { ChaosPlan } from './plan.ts';

export const appSecret = testEnv.SANDBOX_APP_SECRET;
export const OTP = '123456';
/**
 * The stack's settings: the tests' short delays, with room for a loaded two-core machine. A step
 * must finish well within STALL_AFTER_SECONDS (the sweeper re-drives a deposit that did not move
 * for that long, and a re-driven transfer whose attempt is on record is an unknown outcome, as it
 * should be), and a question must be answerable in time under load.
 */
export const chaosEnv = {
  ...testEnv,
  PROVIDER_TIMEOUT_MS: '3000',
  SANDBOX_TIMEOUT_MS: '4000',
  STALL_AFTER_SECONDS: '8',
  // A fast bank's 3.6 s cool-down, less the bank's time over the creation and the list (held with
  // `sync: true`), still goes through a one-shot schedule: the schedule's crash points meet it.
  LONG_WAIT_SECONDS: '1',
  INPUT_TTL_SECONDS: '10',
  // A transfer the bank keeps running is given up after 12 reads (some 12 s, longer at a bank that
  // answers 429s), so that a run meets the poll limit (fault kind `transfer-pending-past-limit`).
  RECONCILE_MAX_POLLS: '12',
  // Four retries of a failed read, each after the visibility timeout: more than any one fault's
  // times (at most three), and a bank that stays down fails its deposit in half a minute, not a
  // minute. Its repeat deposit comes after it: with eight, that chain was the run's longest.
  MAX_RETRIES: '4',
  // A transfer refused for a cool-down (fault kind `bank-cool-down-again`, naming no instant) is tried
  // again in 15 s, not a minute: the deposits behind it on its connection waited that minute too.
  COOL_DOWN_RETRY_SECONDS: '15',
  // A read of the transfer a second after the one before, not two: the reads of a transfer kept
  // running were the run's longest chain (its 100 deposits settled after 104 s at 2, 84 s at 1).
  RECONCILE_POLL_CAP_SECONDS: '1',
  // Webhook retries after 1 s, doubling: a refusing receiver is a while, not an instant.
  WEBHOOK_RETRY_BASE_SECONDS: '1',
  // The production level: what would be logged in AWS is what the audit scans for secrets.
  POWERTOOLS_LOG_LEVEL: 'INFO',
};
/**
 * In a dialect that sends no `sync` (`dapi-v2`), the sandbox holds every call until its bank is done,
 * as the provider does, at most this long, then answers `202 initialized` with its operation's id,
 * read back: inside the provider client's timeout (PROVIDER_TIMEOUT_MS), so a held call is answered.
 */
export const SANDBOX_HOLD_MS = 2_000;
/**
 * How long the bank of a user planned `slowTransfers` takes over a transfer: longer than the hold,
 * so that its transfers are answered `initialized` and read back (where the operation read's faults
 * go off). Every other bank carries them out in SANDBOX_ASYNC_DELAY_MS (200 ms): `done` at once.
 */
export const SLOW_TRANSFER_SECONDS = 3;

/** The stack's settings when its provider client speaks `dialect`. */
export function chaosEnvIn(dialect: DialectName): Record<string, string> {
  return {
    ...chaosEnv,
    PROVIDER_DIALECT: dialect,
    ...(dialects[dialect].sendsSync ? {} : { SANDBOX_HOLD_MS: String(SANDBOX_HOLD_MS) }),
  };
}

export const VISIBILITY_TIMEOUT_SECONDS = 6;
/**
 * How long the bank waits for an answer: a little longer than the deposit does, as a deployment
 * would set INPUT_TTL_SECONDS. The bank holds the user's connection while it waits, so a bank that
 * waited much longer (the sandbox's default is 300 s) would hold up the user's next deposits long
 * after the question expired.
 */
export const SANDBOX_INPUT_TTL_SECONDS = Number(chaosEnv.INPUT_TTL_SECONDS) + 2;
/** A deposit whose next wake-up is further than this waits deliberately (the 24-hour cool-down). */
export const PARK_AFTER_MS = 10 * 60_000;

export interface Counters {
  started: number;
  inFlight: number;
  duplicateMessages: number;
  scheduleFires: number;
  schedulesFired: Set<string>;
  outages: number;
  outageMs: number;
  outageRefusals: number;
  perDepositRefusals: number;
  /** Owners' cancels, by the status they were answered. */
  cancels: Record<string, number>;
  /** Payment sources whose own wake-up schedule the harness deleted. */
  sourceSchedulesLost: number;
  restart?: { afterDeposits: number; pauseMs: number; tookMs: number };
}

export interface RunContext {
  plan: ChaosPlan;
  clients: Clients;
  stack: LocalStack;
  runs: DepositRun[];
  /** The users' payment sources, by user index. */
  sources: Map<number, SourceRun>;
  counters: Counters;
  depositDeadlineMs: number;
  say(line: string): void;
}

/** Runs `work` over `items`, at most `size` at a time. */
export async function pool<T>(items: T[], size: number, work: (item: T) => Promise<void>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(size, items.length) }, async () => {
      while (next < items.length) {
        const item = items[next] as T;
        next += 1;
        await work(item);
      }
    }),
  );
}

export const seconds = (ms: number) => Number((ms / 1000).toFixed(1));
