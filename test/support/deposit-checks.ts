/**
 * What the deposit files under faults check, at the bank and in a deposit's history: the user's
 * balance and transfers, its beneficiaries, and how a step's death shows in the deposit's history.
 */
import type { ExpectStatic } from 'vitest';
import { deathsOf, depositWhen } from './deposits.ts';
import { eventually, type Reply, type TestUser } from './sandbox.ts';

export type Step = 'resolve-bank' | 'ensure-beneficiary' | 'wait-cooldown' | 'transfer';
export type CrashPoint =
  | 'before-provider-call'
  | 'after-provider-call'
  | 'before-state-write'
  | 'after-state-write';
export interface HistoryEntry {
  step: string;
  status: string;
  at: string;
  note?: string;
}

/** A transfer as the sandbox's state lists it. */
export interface SandboxTransfer {
  reference: string;
  amount: number;
  receiver: { beneficiaryID?: string };
  createdAt: string;
}

/** STALL_AFTER_SECONDS (3 s) of the test stack, less a margin. */
const STALL_MS = 2_900;

export const cents = (amount: number) => Math.round(amount * 100);

/** The user's balance, in minor units (fils) so that sums compare exactly, and its transfers. */
export async function sandboxState(user: TestUser) {
  const state = await user.state();
  return {
    balanceMinor: cents(state.accounts[0].balance as number),
    transfers: state.transfers as SandboxTransfer[],
  };
}

/**
 * The user's beneficiaries, as the bank lists them. A call of the deposit's that the bank still holds
 * (a copy of a crashed step's, whose answer nobody waits for any more) keeps the connection busy a
 * moment after the deposit is done: the bank says so (409 OPERATION_IN_PROGRESS), and is asked again.
 */
export async function beneficiaries(user: TestUser): Promise<unknown[]> {
  const reply = await eventually(async () => {
    const listed = await user.call('/v1/payment/beneficiaries/get', { sync: true });
    return listed.status === 409 && listed.body.type === 'OPERATION_IN_PROGRESS' ? undefined : listed;
  }, 10_000);
  if (reply.status !== 200 || !Array.isArray(reply.body.beneficiaries)) {
    throw new Error(`beneficiaries not listed: ${reply.status} ${JSON.stringify(reply.body)}`);
  }
  return reply.body.beneficiaries;
}

/**
 * The step died right after a write of the deposit, before sending the message that write called
 * for: the deposit then sat still until the sweeper found it, STALL_AFTER_SECONDS after that write.
 * The write it died after is the last history entry written before the death: the move on, or, on a
 * machine slow enough for a provider call to time out, the retry the step wrote first (its note
 * names it). Either way nothing moved the deposit for the stall time, and it was the one death.
 */
export async function expectStillUntilSwept(expect: ExpectStatic, deposit: Reply['body'], step: string) {
  const deaths = await deathsOf(deposit.operationID);
  expect(deaths.map((death) => [death.step, death.point])).toEqual([[step, 'after-state-write']]);
  const history = deposit.history as HistoryEntry[];
  const diedAt = deaths[0]?.at ?? 0;
  const written = history.findLastIndex((entry) => Date.parse(entry.at) <= diedAt);
  const after = history[written + 1];
  if (written < 0 || !after) throw new Error(`no write before the death in ${JSON.stringify(history)}`);
  expect(
    Date.parse(after.at) - Date.parse(history[written]?.at ?? ''),
    JSON.stringify(history),
  ).toBeGreaterThanOrEqual(STALL_MS);
}

/**
 * The crash fired in this deposit's `step` at `point` (the local stack recorded the death), once,
 * and the deposit left that step only after it: the step ran again when its message came back.
 */
export async function expectRanAgainAfterDeath(
  expect: ExpectStatic,
  deposit: Reply['body'],
  step: string,
  point: string,
) {
  const deaths = await deathsOf(deposit.operationID);
  expect(deaths.map((death) => [death.step, death.point])).toEqual([[step, point]]);
  const history = deposit.history as HistoryEntry[];
  const entered = history.findIndex((entry) => entry.step === step);
  const left = history.slice(entered + 1).find((entry) => entry.step !== step);
  expect(Date.parse(left?.at ?? '')).toBeGreaterThan(deaths[0]?.at ?? Number.POSITIVE_INFINITY);
}

/** Reads the deposit repeatedly for `ms` and fails as soon as `check` throws: a state that must hold. */
export async function holdsFor(ms: number, check: () => Promise<void>) {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    await check();
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** The deposit once it has ended (done or failed). */
export const settled = (user: TestUser, id: string, timeoutMs = 25_000) =>
  depositWhen(user, id, undefined, timeoutMs);
