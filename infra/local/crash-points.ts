/**
 * Crash points, for the local stack only: places where fault-injection tests make a step die, to
 * prove that no deposit transfers twice or gets stranded. Production code carries no seam for them:
 * `installCrashPoints` wraps the deposit records and the provider client from outside, on their
 * prototypes, when the local stack starts. Inert until a test arms a rule (`POST /_local/crash` on
 * the deposits gateway), for one connection (the digest of its access token) and optionally a step.
 *
 *   before-provider-call  the step dies before its provider call leaves
 *   after-provider-call   the provider acted (metadata, a creation, a transfer), the answer dies with the step
 *   before-state-write    the step dies before a write of the deposit at that step
 *   after-state-write     the write landed; the step dies before anything that follows it
 *   lost-write-answer     the write landed but its answer was lost: the write is sent again, as the
 *                         SDK retries, and that retry finds the version moved on (refused by its
 *                         condition), so the step sees a refused write that was in fact its own
 */
import { DepositItems } from '#shared/adapters/deposits-table';
import type { Deposit, DepositStep } from '#shared/deposits/model';
import { ProviderClient, type ProviderCredentials } from '#shared/provider/client';
import { digest } from '#shared/secrets';

export const crashPointNames = [
  'before-provider-call',
  'after-provider-call',
  'before-state-write',
  'after-state-write',
  'lost-write-answer',
] as const;
export type CrashPoint = (typeof crashPointNames)[number];

interface Rule {
  point: CrashPoint;
  ownerKey: string;
  step?: string | undefined;
  remaining: number;
}

export class StepCrash extends Error {
  constructor(point: CrashPoint, step: string) {
    super(`injected crash ${point} in ${step}`);
    this.name = 'StepCrash';
  }
}

const rules: Rule[] = [];
/** How many times each point went off since the process started (or the last `clear`). */
const fired = new Map<CrashPoint, number>();

export const crashPoints = {
  arm(
    point: CrashPoint,
    ownerKey: string,
    options: { step?: string | undefined; times?: number | undefined } = {},
  ) {
    rules.push({ point, ownerKey, step: options.step, remaining: options.times ?? 1 });
  },
  clear() {
    rules.length = 0;
    fired.clear();
  },
  /** The points that went off, and how often; and how many rules are still armed. */
  report() {
    return {
      fired: Object.fromEntries(fired),
      armed: rules.filter((rule) => rule.remaining > 0).length,
    };
  },
};

/** Whether a rule for this point (and step, and connection) is armed; if so, uses it up. */
function take(point: CrashPoint, step: string, ownerKey: string): boolean {
  const rule = rules.find(
    (candidate) =>
      candidate.point === point &&
      candidate.ownerKey === ownerKey &&
      candidate.remaining > 0 &&
      (!candidate.step || candidate.step === step),
  );
  if (!rule) return false;
  rule.remaining -= 1;
  fired.set(point, (fired.get(point) ?? 0) + 1);
  return true;
}

/** Throws if a rule for this point (and step, and connection) is armed, using it up. */
function check(point: CrashPoint, step: string, ownerKey: string) {
  if (take(point, step, ownerKey)) throw new StepCrash(point, step);
}

/** The provider's operations, by the step that calls them; `acts` if the call changes something. */
const providerCalls = {
  getMetadata: { step: 'resolve-bank', acts: true },
  listBeneficiaries: { step: 'ensure-beneficiary', acts: false },
  createBeneficiary: { step: 'ensure-beneficiary', acts: true },
  createTransfer: { step: 'transfer', acts: true },
  createAutoflowTransfer: { step: 'transfer', acts: true },
  getOperation: { step: 'reconcile', acts: false },
} as const;

let installed = false;

/** Wraps the deposit records and the provider client of this process; once. */
export function installCrashPoints() {
  if (installed) return;
  installed = true;
  // The step a deposit is at as this process last read or wrote it: a write is "in" that step.
  const stepOf = new Map<string, DepositStep>();

  const records = DepositItems.prototype;
  const get = records.get;
  records.get = async function (this: DepositItems, depositId: string) {
    const deposit = await get.call(this, depositId);
    if (deposit) stepOf.set(deposit.id, deposit.step);
    return deposit;
  };
  const save = records.save;
  records.save = async function (this: DepositItems, deposit: Deposit, expectedVersion: number) {
    const step = stepOf.get(deposit.id) ?? deposit.step;
    check('before-state-write', step, deposit.ownerKey);
    const saved = await save.call(this, deposit, expectedVersion);
    if (saved) stepOf.set(deposit.id, deposit.step);
    // The answer of the landed write is lost: the retry of the same write is what the step hears.
    if (saved && rules.length > 0 && take('lost-write-answer', step, deposit.ownerKey)) {
      return save.call(this, deposit, expectedVersion);
    }
    if (saved) check('after-state-write', step, deposit.ownerKey);
    return saved;
  };

  const client = ProviderClient.prototype as unknown as Record<
    string,
    (credentials: ProviderCredentials, ...rest: unknown[]) => Promise<unknown>
  >;
  for (const [name, { step, acts }] of Object.entries(providerCalls)) {
    const call = client[name];
    if (!call) throw new Error(`ProviderClient has no ${name}`);
    client[name] = async function (this: ProviderClient, credentials, ...rest) {
      const ownerKey = digest(credentials.accessToken);
      if (rules.length > 0) check('before-provider-call', step, ownerKey);
      const answer = await call.call(this, credentials, ...rest);
      if (acts && rules.length > 0) check('after-provider-call', step, ownerKey);
      return answer;
    };
  }
}
