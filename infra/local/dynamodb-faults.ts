/**
 * DynamoDB faults, for the local stack only: the answers DynamoDB gives a call under load or trouble,
 * given by a middleware of the SDK's DynamoDB clients (`dynamodb-fault-middleware.ts`) inside the
 * SDK's retries, so that the SDK retries them as it does in AWS. Production code carries no seam for
 * them: the local stack adds the middleware to the clients when it starts, as it wraps the crash
 * points (`crash-points.ts`). Inert until a test arms a rule (`POST /_local/dynamodb-faults` on the
 * deposits gateway) for one connection (its deposits' `ownerKey`), of one kind, for `times` calls:
 *   throttling            ThrottlingException, before the call reaches DynamoDB Local
 *   throughput-exceeded   ProvisionedThroughputExceededException, before it reaches it
 *   internal-error        InternalServerError (a 500), before effect
 *   transaction-conflict  TransactionConflictException for a PutItem or UpdateItem of a deposit item
 *                         (DynamoDB's answer to a plain write racing a transaction on the item), before
 *                         effect
 *   lost-claim-answer     a write of the beneficiary claim, the connection's lease or a shared wake-up
 *   lost-lease-answer     lands at DynamoDB Local and its answer is lost (the connection reset): the
 *   lost-wake-answer      SDK sends it again, and what the caller hears is that retry's answer (its
 *                         condition may fail against the write that landed); lose as many answers as
 *                         the client makes attempts, and the caller sees the timeout itself
 * Each attempt the SDK makes is one call: a rule goes off once per call it meets, `times` in all.
 *
 * Where the step workers run in child processes (`step-workers.ts`), the rules are armed here and
 * relayed there, as the crash points' are; each firing is claimed by one process, and told back.
 */

export const dynamoDbFaultKinds = [
  'throttling',
  'throughput-exceeded',
  'internal-error',
  'transaction-conflict',
  'lost-claim-answer',
  'lost-lease-answer',
  'lost-wake-answer',
] as const;
export type DynamoDbFaultKind = (typeof dynamoDbFaultKinds)[number];

export interface DynamoDbFaultRule {
  id: number;
  kind: DynamoDbFaultKind;
  ownerKey: string;
  /** How many calls it goes off on in all. */
  times: number;
  remaining: number;
}

/**
 * A fault that went off on a connection's call while deposits of that connection had their transfer
 * attempt on record and no outcome in the same process: the step may have failed, or been held up,
 * between its transfer call and the write of its outcome, which leaves that outcome unknown.
 */
export interface FaultInAttempt {
  kind: DynamoDbFaultKind;
  ownerKey: string;
  depositIds: string[];
  /** Epoch ms (real time). */
  at: number;
}

export interface DynamoDbFaultReport {
  /** How many calls each kind went off on (here or in the step workers' processes) since the last `clear`. */
  fired: Partial<Record<DynamoDbFaultKind, number>>;
  /** Rules with calls left. */
  armed: number;
  inAttempts: FaultInAttempt[];
}

/** What a process does with the rules: holds them here, or hands them on to the step workers. */
interface Relay {
  armed(rule: DynamoDbFaultRule): void;
  cleared(): void;
  /** Brings in what the other processes told since (before a report). */
  refresh(): void;
}

let rules: DynamoDbFaultRule[] = [];
let nextId = 1;
const fired = new Map<DynamoDbFaultKind, number>();
const inAttempts: FaultInAttempt[] = [];
let relay: Relay | undefined;
/** Whether this process may fire the rule once more (the step workers' processes claim each firing). */
let mayFire: (rule: DynamoDbFaultRule) => boolean = () => true;
let onFired: (rule: DynamoDbFaultRule) => void = () => {};
let onInAttempt: (fault: FaultInAttempt) => void = (fault) => inAttempts.push(fault);

export const dynamoDbFaults = {
  arm(kind: DynamoDbFaultKind, ownerKey: string, times = 1) {
    const rule = { id: nextId++, kind, ownerKey, times, remaining: times };
    rules.push(rule);
    relay?.armed({ ...rule });
  },
  clear() {
    rules = [];
    fired.clear();
    inAttempts.length = 0;
    relay?.cleared();
  },
  report(): DynamoDbFaultReport {
    relay?.refresh();
    return {
      fired: Object.fromEntries(fired),
      armed: rules.filter((rule) => rule.remaining > 0).length,
      inAttempts: [...inAttempts],
    };
  },
  /** The rules with calls left (handed to a fresh step workers' process). */
  rules: () => rules.filter((rule) => rule.remaining > 0).map((rule) => ({ ...rule })),
};

/** For the stack's process when the steps run elsewhere: the rules go there, and nothing fires here. */
export function relayDynamoDbFaults(to: Relay) {
  relay = to;
}

/** A step workers' process told its parent that a rule went off there. */
export function dynamoDbFaultFiredElsewhere(ruleId: number, kind: DynamoDbFaultKind) {
  const rule = rules.find((candidate) => candidate.id === ruleId);
  if (rule) rule.remaining -= 1;
  fired.set(kind, (fired.get(kind) ?? 0) + 1);
}

/** A step workers' process told its parent of a fault while transfer attempts were open there. */
export function recordFaultInAttempt(fault: FaultInAttempt) {
  inAttempts.push(fault);
}

/** For the step workers' process: the rules its parent holds, and how it claims and tells firings. */
export function holdDynamoDbFaults(options: {
  rules: DynamoDbFaultRule[];
  mayFire: (rule: DynamoDbFaultRule) => boolean;
  fired: (rule: DynamoDbFaultRule) => void;
  inAttempt: (fault: FaultInAttempt) => void;
}) {
  rules = options.rules;
  mayFire = options.mayFire;
  onFired = options.fired;
  onInAttempt = options.inAttempt;
}
/** A rule armed in the parent after this process started. */
export function holdDynamoDbFaultRule(rule: DynamoDbFaultRule) {
  rules.push(rule);
}
export function dropDynamoDbFaultRules() {
  rules = [];
}

/** Whether any rule may go off here (the middleware does no work otherwise). */
export const anyDynamoDbFaultArmed = () => relay === undefined && rules.length > 0;

/** The connections rules are armed for here. */
export const armedOwners = () => new Set(rules.filter((rule) => rule.remaining > 0).map((r) => r.ownerKey));

/**
 * The first rule armed here for this connection whose kind `applies`, used up by one call; undefined
 * when none is.
 */
export function takeDynamoDbFault(
  ownerKey: string,
  applies: (kind: DynamoDbFaultKind) => boolean,
): DynamoDbFaultRule | undefined {
  if (relay) return undefined;
  for (const rule of rules) {
    if (rule.ownerKey !== ownerKey || rule.remaining <= 0 || !applies(rule.kind)) continue;
    // Another process fired it as often as it goes off: used up here too.
    if (!mayFire(rule)) {
      rule.remaining = 0;
      continue;
    }
    rule.remaining -= 1;
    fired.set(rule.kind, (fired.get(rule.kind) ?? 0) + 1);
    onFired(rule);
    return rule;
  }
  return undefined;
}

/** Tells (here, or the parent) of a fault that went off while the connection's transfer attempts were open. */
export function noteFaultInAttempt(fault: FaultInAttempt) {
  onInAttempt(fault);
}
