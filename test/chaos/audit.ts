/**
 * The audit of a chaos run: what the run left behind (the deposits table, the sandbox's ledgers, the
 * webhook receiver's deliveries, the beneficiaries, everything the process wrote) judged against the
 * plan and the invariants of DESIGN.md section 4. Pure: the harness gathers, this judges. Every
 * finding names its deposits (or users); figures are printed whatever the verdict.
 *
 * Its checks, in the order their findings are listed:
 *   `audit-states.ts`         every deposit accepted, and done, failed as its faults explain, or
 *                             deliberately waiting
 *   `audit-ledger.ts`         the sandbox's ledgers: one transfer per done deposit, the right money,
 *                             every transfer to the wallet's account
 *   `audit-webhooks.ts`       every final state reached the receiver, signed
 *   `audit-secrets.ts`        no credentials kept, no plaintext secret in the table or the output
 *   `audit-beneficiaries.ts`  one wallet beneficiary per connection, created once but for a recorded
 *                             reason (the provider's count); no decoy taken for it
 *   `audit-operations.ts`     cancels answered 2xx left nothing moved; resolves agree with the ledger
 *   `audit-sources.ts`        every payment source ended, heard; no follower waited past its instant
 *   `audit-evidence.ts`       every planned crash point and provider fault kind went off; each
 *                             unknown outcome has a cause
 */
import type { DynamoDbFaultReport } from '#infra/local/dynamodb-faults';
import { checkBeneficiaries, routeFigures } from './audit-beneficiaries.ts';
import { type CrashReport, checkEvidence, unknownOutcomeEvidence } from './audit-evidence.ts';
import { checkLedger } from './audit-ledger.ts';
import { checkOperations } from './audit-operations.ts';
import { checkSecrets } from './audit-secrets.ts';
import { checkSources } from './audit-sources.ts';
import { checkStates, questionFigures, waitingFigures } from './audit-states.ts';
import { checkWebhooks } from './audit-webhooks.ts';
import type { Connection, Delivery, DepositItem, TableItem } from './clients.ts';
import type { ClockJump } from './clock-jumps.ts';
import type { DecoyKind } from './decoys.ts';
import type { ChaosPlan, PlannedDeposit, PlannedUser } from './plan.ts';

export { secretFinder } from './audit-secrets.ts';

/** What the harness saw of one deposit while it drove it. */
export interface DepositRun {
  plan: PlannedDeposit;
  id?: string;
  /** Answers other than 202 to the create (then retried with the same key). */
  createRetries: number;
  /** The deposit was read waiting for input at least once. */
  asked: boolean;
  answersSent: number;
  answerErrors: number;
  readErrors: number;
  duplicateMessages: number;
  /** The copies of its step messages the harness sent while it was in flight (`step@version+delay`). */
  copies: string[];
  /** Its owner's cancel, as the API answered it. */
  cancel?: { status: number; type?: string };
  /** Operator redrives sent while it was in flight, by the status they were answered. */
  operatorRedrives: Record<string, number>;
  /** The operator's resolve of its unknown transfer outcome, from the bank's ledger, and its answer. */
  resolved?: { outcome: 'done' | 'failed'; status: number; unknown: string };
  /** `final` done or failed; `parked` waiting on a long cool-down; `stalled` past its deadline. */
  outcome: 'final' | 'parked' | 'stalled' | 'not-created';
  findings: string[];
}

/** What the harness saw of a user's payment source while it drove it. */
export interface SourceRun {
  userIndex: number;
  id?: string;
  /** Its owner's cancel, as the API answered it. */
  cancel?: { status: number; type?: string };
  /** Its own wake-up schedule was deleted (lost) while it cooled down. */
  scheduleDeleted: boolean;
  /**
   * Its wake-up was never armed: it waited far ahead, with no schedule, past `UNARMED_AFTER_MS` (its
   * worker died between the write and the schedule): lost before the harness could lose it. Where it
   * waited (its step, version and wake-up), for the figures.
   */
  scheduleNeverArmed?: string;
  outcome: 'final' | 'parked' | 'stalled' | 'not-created';
  /**
   * Where it waited when the harness stopped reading it at its deadline (`stalled`): its step,
   * version, status, check time and recorded wake-up, for the figures (the clock's move that follows
   * may still end it).
   */
  stalledAt?: string;
  findings: string[];
}

export interface UserRun {
  plan: PlannedUser;
  connection?: Connection;
  /** The decoys registered beside the wallet before its deposits ran, with the ids the bank lists. */
  decoys?: { kind: DecoyKind; iban: string; id: string }[];
  error?: string;
}

/** A transfer's receiver, as the bank recorded it. */
export interface Receiver {
  beneficiaryID?: string | undefined;
  name: string;
  iban: string;
  swiftCode: string;
}

/** A call of the user's beneficiary creation that reached the bank, as the sandbox recorded it. */
export interface CreationCall {
  jobID: string;
  at: string;
  iban: string;
  outcome: 'created' | 'asked' | 'refused';
  type?: string | undefined;
  beneficiaryID?: string | undefined;
}

/** What the sandbox holds of a user after the run (`POST /sandbox/users/get`). */
export interface Ledger {
  accounts: { id: string; balance: number; currency: string }[];
  transfers: { reference: string; amount: number; currency: string; createdAt: string; receiver: Receiver }[];
  /** The user's fault rules after the run, a counted rule with what it has left (absent: not read). */
  faults?: { times?: number | undefined; remaining?: number | undefined }[];
  /** Every call of its beneficiary creation that reached the bank (absent: not read). */
  beneficiaryCreations?: CreationCall[];
}

export interface AuditInput {
  plan: ChaosPlan;
  users: UserRun[];
  runs: DepositRun[];
  sources: SourceRun[];
  /** Every item of the deposits table. */
  items: TableItem[];
  ledgers: Map<number, Ledger>;
  deliveries: Delivery[];
  /** Wallet beneficiaries the bank lists per user (users whose list can be trusted now). */
  beneficiaries: Map<number, number>;
  /** Every plaintext secret of the run: access tokens, user secrets, the app secret. */
  secrets: string[];
  /** The one-time passwords the harness answered with. */
  otps: string[];
  output: string;
  now: number;
  /** Wake-ups further than this are a deliberate wait (a long cool-down), not a stall. */
  parkAfterMs: number;
  /** Schedules armed in the local scheduler, by the deposit they wake. */
  scheduledDeposits: Set<string>;
  /** What the harness found out about a deposit the audit names (why its event is missing, ...). */
  notes?: Map<string, string>;
  /** The crash points' report: what went off, the deaths, the transfer answers lost. */
  crashes: CrashReport;
  /** The DynamoDB faults' report: what went off, and when transfer attempts were open. */
  dynamoDbFaults?: DynamoDbFaultReport | undefined;
  /** The step workers' processes killed (when they ran in child processes). */
  workerKills?: { planned: number; unplanned: number } | undefined;
  /** The stack's stall time: a follower moves within it of its source's instant. */
  stallAfterMs: number;
  /**
   * The local clock's moves past the long cool-downs (local ms), in order: an instant one jumped over
   * came at its `to`.
   */
  clockJumps?: ClockJump[] | undefined;
}

export interface AuditResult {
  failures: string[];
  figures: Record<string, unknown>;
}

/** What every check reads, and where it records its findings. */
export interface AuditScope {
  input: AuditInput;
  /** The deposits' items of the table, by id. */
  items: Map<string, DepositItem>;
  /** Each deposit's evidence that its transfer's outcome could be unknown (`audit-evidence.ts`). */
  evidence: Map<string, string>;
  /** A deposit as a finding names it: its id, its index in the run, its user and bank. */
  name(run: DepositRun): string;
  /** Records findings of one kind, naming (the first of) their deposits; none, nothing recorded. */
  finding(title: string, named: string[]): void;
  /** The findings so far, one line each. */
  failures: string[];
}

const MAX_NAMED = 20;
/** What a follower may take past its source's instant and the stall time: the sweeper's round, a loaded machine. */
const FOLLOWER_SLACK_MS = 15_000;

export function audit(input: AuditInput): AuditResult {
  const scope = scopeOf(input);
  const states = checkStates(scope);
  const money = checkLedger(scope);
  const webhooks = checkWebhooks(scope, states.waiting);
  const secrets = checkSecrets(scope);
  const beneficiaries = checkBeneficiaries(scope);
  const operations = checkOperations(scope);
  const sources = checkSources(scope, input.stallAfterMs, FOLLOWER_SLACK_MS);
  const evidence = checkEvidence(scope, input.crashes, scope.evidence, input.workerKills);
  return {
    failures: scope.failures,
    figures: {
      outcomes: states.outcomes,
      failedByType: states.failedByType,
      questions: questionFigures(scope),
      transferOutcomeUnknown: money.transferOutcomeUnknown,
      ledger: money.ledger,
      waiting: waitingFigures(scope, states.waiting),
      webhooks,
      secrets,
      beneficiaries,
      knownRoutes: routeFigures(scope),
      ...operations,
      sources,
      evidence,
    },
  };
}

/**
 * The evidence of an unknown outcome the bank caused: a transfer it kept `initialized` past the poll
 * limit (fault kind `transfer-pending-past-limit`), which the deposit gave up reading.
 */
function withPendingTransfers(
  input: AuditInput,
  items: Map<string, DepositItem>,
  evidence: Map<string, string>,
) {
  for (const run of input.runs) {
    const user = input.plan.users[run.plan.userIndex];
    const item = run.id ? items.get(run.id) : undefined;
    // The failure's message, or (resolved by an operator after the run) the one it was resolved from.
    const msg = run.resolved?.unknown ?? item?.failure?.msg ?? '';
    if (!run.id || evidence.has(run.id) || !msg.startsWith('The bank never told')) continue;
    if (user?.providerFaults.some((fault) => fault.kind === 'transfer-pending-past-limit'))
      evidence.set(run.id, 'the bank kept its transfer initialized past the poll limit');
  }
  return evidence;
}

function scopeOf(input: AuditInput): AuditScope {
  const failures: string[] = [];
  const items = new Map<string, DepositItem>();
  for (const item of input.items)
    if (item.sk === 'DEPOSIT') items.set(String(item.id), item as unknown as DepositItem);
  return {
    input,
    items,
    failures,
    evidence: withPendingTransfers(input, items, unknownOutcomeEvidence(input.crashes, input.dynamoDbFaults)),
    name: (run) => {
      const user = input.plan.users[run.plan.userIndex];
      return `${run.id ?? '(not created)'} [#${run.plan.index}, user ${run.plan.userIndex} ${user?.bank.bankId}]`;
    },
    finding: (title, named) => {
      if (named.length === 0) return;
      const shown = named.slice(0, MAX_NAMED).join('; ');
      const more = named.length > MAX_NAMED ? ` ... and ${named.length - MAX_NAMED} more` : '';
      failures.push(`${title} (${named.length}): ${shown}${more}`);
    },
  };
}
