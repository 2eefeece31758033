/**
 * Crash points, for the local stack only: places where fault-injection tests make a step die, to
 * prove that no deposit transfers twice or gets stranded. Production code carries no seam for them:
 * `crash-wrappers.ts` wraps the adapters and the provider client from outside, on their prototypes,
 * when the local stack starts. Inert until a test arms a rule (`POST /_local/crash` on the deposits
 * gateway), for one connection (its deposits' `ownerKey`: the keyed digest of its access token under
 * the stack's OWNER_KEY) and optionally a step.
 *
 * Around every write a step makes, and its provider calls, a step can die before it or after it:
 * together they cover the gap between any two consecutive writes.
 *   before/after-provider-call  around a provider call (after: the provider acted, the answer dies)
 *   before/after-state-write    around a write of the deposit
 *   before/after-claim-write    around a write of the beneficiary claim
 *   before/after-lease-write    around taking or releasing the connection's lease
 *   before/after-wake-write     around a write of a shared wake-up (arm, follow, take)
 *   before/after-schedule       around arming or cancelling a wake-up schedule
 *   before/after-queue-send     around sending a step message
 *   lost-write-answer           the deposit's write landed but its answer was lost: the write is sent
 *                               again, as the SDK retries, and that retry finds the version moved on,
 *                               so the step sees a refused write that was in fact its own
 *
 * How a step dies: in the stack's own process it throws (`StepCrash`); in the step workers' child
 * process (`step-workers.ts`) the process is killed, SIGKILL, so no catch or finally runs.
 */

export const crashPointNames = [
  'before-provider-call',
  'after-provider-call',
  'before-state-write',
  'after-state-write',
  'lost-write-answer',
  'before-claim-write',
  'after-claim-write',
  'before-lease-write',
  'after-lease-write',
  'before-wake-write',
  'after-wake-write',
  'before-schedule',
  'after-schedule',
  'before-queue-send',
  'after-queue-send',
] as const;
export type CrashPoint = (typeof crashPointNames)[number];

export interface CrashRule {
  id: number;
  point: CrashPoint;
  ownerKey: string;
  step?: string | undefined;
  /** How many times it goes off in all. */
  times: number;
  remaining: number;
}

/** Where and how a step died. */
export interface Death {
  /** The crash point; `killed` for a process killed at whatever it was doing (a restart). */
  point: CrashPoint | 'killed';
  step: string;
  ownerKey: string;
  depositId?: string | undefined;
  /** Epoch ms (real time). */
  at: number;
  /** `thrown` in the stack's process; `killed` in the step workers' process, SIGKILL. */
  how: 'thrown' | 'killed';
  /**
   * The deposits whose transfer attempt this process had recorded, and not yet its outcome, when it
   * died: their transfer may have left, and nobody heard how it ended.
   */
  attemptsOpen: string[];
}

/** A transfer's submission whose answer was lost (a 5xx, a timeout, an unreadable answer). */
export interface LostAnswer {
  ownerKey: string;
  depositId?: string | undefined;
  reason: string;
  at: number;
}

export class StepCrash extends Error {
  constructor(point: CrashPoint | 'killed', step: string) {
    super(`injected crash ${point} in ${step}`);
    this.name = 'StepCrash';
  }
}

/** What a process does with the rules: holds them here, or hands them on to the step workers' process. */
interface Relay {
  armed(rule: CrashRule): void;
  cleared(): void;
  /** Brings in what the other process told since (before a report). */
  refresh(): void;
}

let rules: CrashRule[] = [];
let nextId = 1;
/** How many times each point went off (here, or in the step workers' process) since the last `clear`. */
const fired = new Map<CrashPoint, number>();
const deaths: Death[] = [];
const lostAnswers: LostAnswer[] = [];
let relay: Relay | undefined;
/** How this process dies at a point: recorded here and thrown, by default. */
let dying: (death: Death) => Promise<never> = async (death) => {
  deaths.push(death);
  throw new StepCrash(death.point, death.step);
};
/** Told of each rule used up here (the step workers' process tells its parent). */
let onFired: (rule: CrashRule) => void = () => {};
/**
 * Whether this process may fire the rule once more: always, alone; the step workers' processes,
 * which hold the same rules, each firing claimed by one of them only (`step-worker-process.ts`).
 */
let mayFire: (rule: CrashRule) => boolean = () => true;
let onLostAnswer: (lost: LostAnswer) => void = (lost) => lostAnswers.push(lost);
/** Deposits with a transfer attempt on record and no outcome yet, by this process: id → owner. */
const attempts = new Map<string, string>();
/** The deposit whose transfer attempt this process last opened, per connection. */
const lastOpened = new Map<string, string>();

export const crashPoints = {
  arm(
    point: CrashPoint,
    ownerKey: string,
    options: { step?: string | undefined; times?: number | undefined } = {},
  ) {
    const times = options.times ?? 1;
    const rule = { id: nextId++, point, ownerKey, step: options.step, times, remaining: times };
    rules.push(rule);
    relay?.armed({ ...rule });
  },
  clear() {
    rules = [];
    fired.clear();
    deaths.length = 0;
    lostAnswers.length = 0;
    relay?.cleared();
  },
  /** The points that went off and how often, the rules still armed, the deaths and lost answers. */
  report() {
    relay?.refresh();
    return {
      fired: Object.fromEntries(fired),
      armed: rules.filter((rule) => rule.remaining > 0).length,
      deaths: [...deaths],
      lostAnswers: [...lostAnswers],
    };
  },
  /** The rules still armed (handed to a fresh step workers' process). */
  rules: () => rules.filter((rule) => rule.remaining > 0).map((rule) => ({ ...rule })),
};

/** For the stack's process when the steps run elsewhere: the rules go there, and nothing fires here. */
export function relayCrashPoints(to: Relay) {
  relay = to;
}

/** The step workers' process told its parent that a rule went off there. */
export function firedElsewhere(ruleId: number, point: CrashPoint) {
  const rule = rules.find((candidate) => candidate.id === ruleId);
  if (rule) rule.remaining -= 1;
  fired.set(point, (fired.get(point) ?? 0) + 1);
}

/** The step workers' process died, or lost a transfer's answer: its parent records it. */
export function recordDeath(death: Death) {
  deaths.push(death);
}
export function recordLostAnswer(lost: LostAnswer) {
  lostAnswers.push(lost);
}

/** For the step workers' process: the rules its parent holds, how it dies, whom it tells. */
export function holdCrashPoints(options: {
  rules: CrashRule[];
  die: (death: Death) => Promise<never>;
  mayFire: (rule: CrashRule) => boolean;
  fired: (rule: CrashRule) => void;
  lostAnswer: (lost: LostAnswer) => void;
}) {
  rules = options.rules;
  dying = options.die;
  mayFire = options.mayFire;
  onFired = options.fired;
  onLostAnswer = options.lostAnswer;
}
/** A rule armed in the parent after this process started. */
export function holdRule(rule: CrashRule) {
  rules.push(rule);
}
export function dropRules() {
  rules = [];
}

/** Whether any rule is armed here (the wrappers skip all work when none is). */
export const anyArmed = () => relay === undefined && rules.length > 0;

/** Whether a rule for this point (and step, and connection) is armed here; if so, uses it up. */
export function take(point: CrashPoint, step: string, ownerKey: string): boolean {
  if (relay) return false;
  for (const rule of rules) {
    const matches =
      rule.point === point &&
      rule.ownerKey === ownerKey &&
      rule.remaining > 0 &&
      (!rule.step || rule.step === step);
    if (!matches) continue;
    // Another process fired it as often as it goes off: used up here too.
    if (!mayFire(rule)) {
      rule.remaining = 0;
      continue;
    }
    rule.remaining -= 1;
    fired.set(point, (fired.get(point) ?? 0) + 1);
    onFired(rule);
    return true;
  }
  return false;
}

/** Dies here if a rule for this point (and step, and connection) is armed, using it up. */
export async function check(point: CrashPoint, step: string, ownerKey: string, depositId?: string) {
  if (!take(point, step, ownerKey)) return;
  const death: Death = {
    point,
    step,
    ownerKey,
    depositId,
    at: Date.now(),
    how: 'thrown',
    attemptsOpen: [...attempts.keys()],
  };
  await dying(death);
}

/** The deposit's write landed: whether its transfer attempt is now open (recorded, no outcome). */
export function noteAttempt(depositId: string, ownerKey: string, open: boolean) {
  if (open) lastOpened.set(ownerKey, depositId);
  if (open === attempts.has(depositId)) return;
  if (open) attempts.set(depositId, ownerKey);
  else attempts.delete(depositId);
  attemptObserver(depositId, open);
}

/** Whether this deposit's transfer attempt is open in this process. */
export const isOpen = (depositId: string) => attempts.has(depositId);

/** The connection's deposits whose transfer attempt is open in this process. */
export const openAttemptsOf = (ownerKey: string) =>
  [...attempts].filter(([, owner]) => owner === ownerKey).map(([depositId]) => depositId);

let attemptObserver: (depositId: string, open: boolean) => void = () => {};
/** Told each time a transfer attempt opens or closes in this process (the step workers' journal). */
export function onAttempt(observer: (depositId: string, open: boolean) => void) {
  attemptObserver = observer;
}

/**
 * The deposit whose transfer attempt this process opened last for the connection. A submission
 * follows its own attempt's write with no wait between, so read as the call starts it is the call's
 * deposit; read when the call ends, it may be another's: a lease that ran out under a call (the
 * local clock moved past it) lets the connection's next deposit open its attempt meanwhile.
 */
export const lastOpenedOf = (ownerKey: string) => lastOpened.get(ownerKey);

/** A transfer's submission for this connection, the deposit's, answered nothing readable. */
export function noteLostAnswer(ownerKey: string, depositId: string | undefined, reason: string) {
  onLostAnswer({ ownerKey, depositId, reason, at: Date.now() });
}
