/**
 * Crash points: places in the workflow where fault-injection tests make a step die, to prove that no
 * deposit transfers twice or gets stranded. Inert unless something arms them; only the local stack
 * does (`POST /_local/crash` on the deposits gateway), never the AWS deployment.
 */
export type CrashPoint =
  | 'before-provider-call'
  | 'after-provider-call'
  | 'before-state-write'
  | 'after-state-write';

interface Rule {
  point: CrashPoint;
  /** Only deposits of this connection (digest of its access token), so parallel tests stay apart. */
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
  },
  /** Throws if a rule for this point (and step, and connection) is armed, using it up. */
  check(point: CrashPoint, step: string, ownerKey: string) {
    if (rules.length === 0) return;
    const rule = rules.find(
      (candidate) =>
        candidate.point === point &&
        candidate.ownerKey === ownerKey &&
        (!candidate.step || candidate.step === step),
    );
    if (!rule || rule.remaining <= 0) return;
    rule.remaining -= 1;
    throw new StepCrash(point, step);
  },
};
