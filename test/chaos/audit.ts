/**
 * The audit of a chaos run: what the run left behind (the deposits table, the sandbox's ledgers, the
 * webhook receiver's deliveries, the beneficiaries, everything the process wrote) judged against the
 * plan and the invariants of DESIGN.md section 4. Pure: the harness gathers, this judges. Every
 * finding names its deposits (or users); figures are printed whatever the verdict.
 */
import { toMinorUnits } from '#shared/money';
import type { Connection, Delivery, DepositItem, TableItem } from './clients.ts';
import { explainedFailures } from './faults.ts';
import { bankAsks, type ChaosPlan, type PlannedDeposit, type PlannedUser } from './plan.ts';

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
  /** `final` done or failed; `parked` waiting on a long cool-down; `stalled` past its deadline. */
  outcome: 'final' | 'parked' | 'stalled' | 'not-created';
  findings: string[];
}

export interface UserRun {
  plan: PlannedUser;
  connection?: Connection;
  error?: string;
}

export interface Ledger {
  accounts: { id: string; balance: number; currency: string }[];
  transfers: { reference: string; amount: number; currency: string; createdAt: string }[];
}

export interface AuditInput {
  plan: ChaosPlan;
  users: UserRun[];
  runs: DepositRun[];
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
}

export interface AuditResult {
  failures: string[];
  figures: Record<string, unknown>;
}

const MAX_NAMED = 20;

export function audit(input: AuditInput): AuditResult {
  const failures: string[] = [];
  const items = new Map<string, DepositItem>();
  for (const item of input.items)
    if (item.sk === 'DEPOSIT') items.set(String(item.id), item as unknown as DepositItem);
  const usersByIndex = new Map(input.users.map((user) => [user.plan.index, user]));
  const name = (run: DepositRun) => {
    const user = input.plan.users[run.plan.userIndex];
    return `${run.id ?? '(not created)'} [#${run.plan.index}, user ${run.plan.userIndex} ${user?.bank.bankId}]`;
  };
  /** Groups findings of one kind, naming the deposits. */
  const finding = (title: string, named: string[]) => {
    if (named.length === 0) return;
    const shown = named.slice(0, MAX_NAMED).join('; ');
    const more = named.length > MAX_NAMED ? ` ... and ${named.length - MAX_NAMED} more` : '';
    failures.push(`${title} (${named.length}): ${shown}${more}`);
  };

  // --- every deposit accepted, and where it stands
  const notCreated: string[] = [];
  const stalled: string[] = [];
  const harness: string[] = [];
  const unexplained: string[] = [];
  const unansweredButDone: string[] = [];
  const outcomes = { done: 0, failed: 0, waiting: 0, stalled: 0 };
  const failedByType: Record<string, number> = {};
  const waitingDeposits: { run: DepositRun; item: DepositItem }[] = [];
  for (const run of input.runs) {
    harness.push(...run.findings.map((text) => `${name(run)}: ${text}`));
    const item = run.id ? items.get(run.id) : undefined;
    if (!run.id || !item) {
      notCreated.push(name(run));
      continue;
    }
    const user = input.plan.users[run.plan.userIndex] as PlannedUser;
    if (item.status === 'done' || item.status === 'failed') {
      if (item.status === 'done') outcomes.done += 1;
      else {
        outcomes.failed += 1;
        const type = item.failure?.type ?? '(none)';
        failedByType[type] = (failedByType[type] ?? 0) + 1;
        if (!explainedFailures(user, run.plan).has(type)) {
          const copies = run.copies.length > 0 ? ` (copies sent: ${run.copies.join(' ')})` : '';
          unexplained.push(`${name(run)} ${type}: ${item.failure?.msg ?? ''}${copies}`);
        }
      }
      if (
        item.status === 'done' &&
        (run.plan.belowMinimum || (run.plan.answers === 'never' && bankAsks(user.bank)))
      ) {
        unansweredButDone.push(name(run));
      }
      continue;
    }
    const wake = Math.max(
      item.step === 'wait-cooldown' ? (item.cooldownUntil ?? 0) : 0,
      item.beneficiaryLookupAt ?? 0,
      item.sleepsUntil ?? 0,
    );
    const deliberate =
      user.bank.longCoolDown &&
      item.status === 'initialized' &&
      wake > input.now + input.parkAfterMs &&
      item.checkAt !== undefined &&
      item.checkAt >= wake;
    if (deliberate) {
      outcomes.waiting += 1;
      waitingDeposits.push({ run, item });
      continue;
    }
    outcomes.stalled += 1;
    const last = item.history.at(-1);
    stalled.push(
      `${name(run)} ${item.status} at ${item.step} v${item.version}, last moved ${Math.round((input.now - (last?.at ?? 0)) / 1000)} s ago${last?.note ? ` (${last.note})` : ''}`,
    );
  }
  finding('deposits not accepted or not in the table', notCreated);
  finding('deposits stalled: neither done, failed, nor deliberately waiting', stalled);
  finding('deposits failed with a type no injected fault explains', unexplained);
  finding(
    'deposits done that had to fail (below the minimum, or a question nobody answered)',
    unansweredButDone,
  );
  finding('harness findings (the API answered out of contract)', harness);

  // --- the ledger: at most one transfer per deposit, exactly one per done deposit, the right money
  const doubles: string[] = [];
  const doneWithout: string[] = [];
  const wrongMoney: string[] = [];
  const movedWithoutDeposit: string[] = [];
  const failedButMoved: string[] = [];
  const balances: string[] = [];
  let transfers = 0;
  let unknownOutcome = 0;
  let unknownWithTransfer = 0;
  const moved: Record<string, number> = {};
  for (const user of input.plan.users) {
    const ledger = input.ledgers.get(user.index);
    const connection = usersByIndex.get(user.index)?.connection;
    if (!ledger || !connection) continue;
    const currency = user.bank.currency;
    const byAmount = new Map<number, Ledger['transfers']>();
    let sumMinor = 0;
    for (const transfer of ledger.transfers) {
      transfers += 1;
      const minor = toMinorUnits(transfer.amount, currency);
      sumMinor += minor;
      moved[transfer.currency] = (moved[transfer.currency] ?? 0) + minor;
      byAmount.set(minor, [...(byAmount.get(minor) ?? []), transfer]);
    }
    const planned = new Set(user.deposits.map((deposit) => deposit.amountMinor));
    for (const [minor, list] of byAmount) {
      if (!planned.has(minor)) {
        movedWithoutDeposit.push(
          `user ${user.index}: ${list.map((t) => `${t.reference} ${t.amount} ${t.currency}`).join(', ')}`,
        );
      }
    }
    for (const deposit of user.deposits) {
      const run = input.runs[deposit.index] as DepositRun;
      const item = run.id ? items.get(run.id) : undefined;
      const mine = byAmount.get(deposit.amountMinor) ?? [];
      if (mine.length > 1) doubles.push(`${name(run)}: ${mine.map((t) => t.reference).join(', ')}`);
      if (!item) continue;
      if (item.status === 'done') {
        const byReference = ledger.transfers.filter((t) => t.reference === item.reference);
        const [transfer] = byReference;
        if (byReference.length !== 1 || !transfer) {
          doneWithout.push(`${name(run)} reference ${item.reference}: ${byReference.length} transfers`);
        } else if (
          toMinorUnits(transfer.amount, currency) !== deposit.amountMinor ||
          transfer.currency !== item.currency ||
          item.amountMinor !== deposit.amountMinor
        ) {
          wrongMoney.push(
            `${name(run)}: asked ${deposit.amount} ${currency}, deposit ${item.amountMinor} minor ${item.currency}, moved ${transfer.amount} ${transfer.currency}`,
          );
        }
      } else if (item.status === 'failed' && item.failure?.type === 'TRANSFER_OUTCOME_UNKNOWN') {
        unknownOutcome += 1;
        if (mine.length > 0) unknownWithTransfer += 1;
      } else if (mine.length > 0) {
        failedButMoved.push(
          `${name(run)} ${item.status} ${item.failure?.type ?? ''}: ${mine.map((t) => t.reference).join(', ')}`,
        );
      }
    }
    const account = ledger.accounts[0];
    const opening = toMinorUnits(connection.openingBalance, currency);
    if (account && toMinorUnits(account.balance, currency) !== opening - sumMinor) {
      balances.push(
        `user ${user.index}: opened ${connection.openingBalance}, moved ${sumMinor} minor, holds ${account.balance}`,
      );
    }
  }
  finding('deposits with more than one transfer in the ledger', doubles);
  finding('done deposits without exactly one transfer of their reference', doneWithout);
  finding('done deposits whose transfer moved other money', wrongMoney);
  finding('transfers in the ledger that no deposit asked for', movedWithoutDeposit);
  finding(
    'deposits whose money moved but that are neither done nor TRANSFER_OUTCOME_UNKNOWN',
    failedButMoved,
  );
  finding('accounts whose balance does not add up', balances);

  // --- every final state reached the webhook receiver, signed
  const byDeposit = new Map<string, Delivery[]>();
  let unverified = 0;
  for (const delivery of input.deliveries) {
    if (!delivery.verified) unverified += 1;
    byDeposit.set(delivery.depositId, [...(byDeposit.get(delivery.depositId) ?? []), delivery]);
  }
  const unheard: string[] = [];
  const twoEndings: string[] = [];
  const unheardWait: string[] = [];
  let finalsHeard = 0;
  let finals = 0;
  for (const run of input.runs) {
    const item = run.id ? items.get(run.id) : undefined;
    if (!item || !run.id) continue;
    const delivered = (byDeposit.get(run.id) ?? []).filter((delivery) => delivery.verified);
    if (item.status === 'done' || item.status === 'failed') {
      finals += 1;
      const type = item.status === 'done' ? 'deposit.done' : 'deposit.failed';
      const other = item.status === 'done' ? 'deposit.failed' : 'deposit.done';
      const heard = delivered.filter(
        (delivery) =>
          delivery.type === type &&
          (item.status === 'done'
            ? delivery.data.reference === item.reference
            : delivery.data.type === item.failure?.type),
      );
      if (heard.length > 0) finalsHeard += 1;
      else {
        const note = input.notes?.get(run.id);
        unheard.push(`${name(run)} ${item.status} ${item.failure?.type ?? ''}${note ? ` (${note})` : ''}`);
      }
      if (delivered.some((delivery) => delivery.type === other)) twoEndings.push(name(run));
    }
  }
  for (const { run, item } of waitingDeposits) {
    if (item.step !== 'wait-cooldown' || !run.id) continue;
    const heard = (byDeposit.get(run.id) ?? []).some((d) => d.verified && d.type === 'deposit.cooling_down');
    if (!heard) unheardWait.push(name(run));
  }
  finding('final states that never reached the webhook receiver (verified)', unheard);
  finding('deposits the receiver heard end both done and failed', twoEndings);
  finding('deposits cooling down whose caller never heard of it', unheardWait);
  if (unverified > 0) failures.push(`webhook deliveries whose signature did not verify: ${unverified}`);

  // --- no credentials on a finished deposit; no plaintext secret in the table or the output
  const keptCredentials: string[] = [];
  for (const run of input.runs) {
    const item = run.id ? items.get(run.id) : undefined;
    if (!item || (item.status !== 'done' && item.status !== 'failed')) continue;
    const kept = ['sealedCredentials', 'sealedAnswers'].filter((field) => field in item);
    if (kept.length > 0) keptCredentials.push(`${name(run)} ${item.status} keeps ${kept.join(', ')}`);
  }
  finding('finished deposits that keep credentials', keptCredentials);
  const find = secretFinder(input.secrets, input.otps);
  const leakingItems = input.items
    .map((item) => ({ item, hits: find(JSON.stringify(item)) }))
    .filter(({ hits }) => hits.length > 0)
    .map(({ item, hits }) => `${item.pk} ${item.sk}: ${hits.join(', ')}`);
  finding('deposits table items holding a plaintext secret', leakingItems);
  const leakingLines = input.output
    .split('\n')
    .map((line, index) => ({ index, hits: find(line) }))
    .filter(({ hits }) => hits.length > 0)
    .map(({ index, hits }) => `line ${index + 1}: ${hits.join(', ')}`);
  finding('output lines holding a plaintext secret', leakingLines);

  // --- one beneficiary per connection and wallet account
  const beneficiaryFindings: string[] = [];
  let maxBeneficiaries = 0;
  for (const [userIndex, count] of input.beneficiaries) {
    maxBeneficiaries = Math.max(maxBeneficiaries, count);
    const user = input.plan.users[userIndex] as PlannedUser;
    const anyDone = user.deposits.some((deposit) => {
      const id = input.runs[deposit.index]?.id;
      return id !== undefined && items.get(id)?.status === 'done';
    });
    if (count > 1 || (anyDone && count !== 1)) {
      beneficiaryFindings.push(
        `user ${userIndex} ${user.bank.bankId}: ${count} wallet beneficiaries${anyDone ? ' (a deposit is done)' : ''}`,
      );
    }
  }
  finding('connections without exactly one wallet beneficiary', beneficiaryFindings);

  const asked = input.runs.filter((run) => run.asked);
  const never = input.runs.filter((run) => run.plan.answers === 'never');
  const expired = input.runs.filter((run) => run.id && items.get(run.id)?.failure?.type === 'INPUT_EXPIRED');
  return {
    failures,
    figures: {
      outcomes,
      failedByType,
      questions: {
        depositsAsked: asked.length,
        answersSent: input.runs.reduce((sum, run) => sum + run.answersSent, 0),
        answerRetries: input.runs.reduce((sum, run) => sum + run.answerErrors, 0),
        leftUnanswered: never.length,
        leftUnansweredAndAsked: never.filter((run) => run.asked).length,
        inputExpired: expired.length,
      },
      transferOutcomeUnknown: {
        deposits: unknownOutcome,
        withTransferInLedger: unknownWithTransfer,
        without: unknownOutcome - unknownWithTransfer,
      },
      ledger: { transfers, movedMinorByCurrency: moved },
      waiting: {
        deposits: waitingDeposits.length,
        withScheduleArmed: waitingDeposits.filter(({ run }) => run.id && input.scheduledDeposits.has(run.id))
          .length,
      },
      webhooks: {
        deliveries: input.deliveries.length,
        distinctEvents: new Set(input.deliveries.map((delivery) => delivery.id)).size,
        unverified,
        finalStatesHeard: `${finalsHeard}/${finals}`,
      },
      secrets: {
        tableItemsScanned: input.items.length,
        finishedDepositsChecked: input.runs.filter((run) => {
          const status = run.id ? items.get(run.id)?.status : undefined;
          return status === 'done' || status === 'failed';
        }).length,
        outputLinesScanned: input.output.split('\n').length,
        secretsLookedFor: input.secrets.length + input.otps.length,
      },
      beneficiaries: { connectionsListed: input.beneficiaries.size, mostPerConnection: maxBeneficiaries },
    },
  };
}

/**
 * Finds plaintext secrets in a text. Secrets are long random tokens: they are indexed by their first
 * eight characters, so a text is scanned once whatever their number. A one-time password is short
 * and all digits: it counts only standing alone (not inside a longer run of letters or digits, such
 * as an account number).
 */
export function secretFinder(secrets: string[], otps: string[]): (text: string) => string[] {
  const byPrefix = new Map<string, string[]>();
  for (const secret of secrets) {
    if (secret.length < 8) throw new Error('a secret to look for is too short to be told from noise');
    const prefix = secret.slice(0, 8);
    byPrefix.set(prefix, [...(byPrefix.get(prefix) ?? []), secret]);
  }
  const otpPatterns = [...new Set(otps)].map(
    (otp) => new RegExp(`(?<![0-9A-Za-z])${otp.replace(/[^0-9A-Za-z]/g, '')}(?![0-9A-Za-z])`),
  );
  const redact = (secret: string) => `${secret.slice(0, 6)}...(${secret.length} chars)`;
  return (text) => {
    const hits = new Set<string>();
    for (let index = 0; index + 8 <= text.length; index += 1) {
      const candidates = byPrefix.get(text.slice(index, index + 8));
      if (!candidates) continue;
      for (const secret of candidates) if (text.startsWith(secret, index)) hits.add(redact(secret));
    }
    for (const pattern of otpPatterns)
      if (pattern.test(text)) hits.add(`one-time password ${pattern.source}`);
    return [...hits];
  };
}
