/**
 * The first check of the audit: every deposit accepted, and where it stands. Each is done, failed
 * with a type its user's faults explain (or, BENEFICIARY_AMBIGUOUS at a bank that masks accounts,
 * its user's forgotten record: `audit-beneficiaries.ts`), or deliberately waiting (a long cool-down,
 * its wake-up recorded); anything else is stalled. A deposit that had to fail (below the minimum, or
 * a question nobody answered) must not be done; one the harness gave up on (past its deadline) is
 * stalled, whatever became of it after. Also the harness's own findings, and the questions' figures.
 */
import type { AuditScope, DepositRun } from './audit.ts';
import { ambiguityExplained } from './audit-beneficiaries.ts';
import { needsEvidence } from './audit-evidence.ts';
import type { DepositItem } from './clients.ts';
import { explainedFailures } from './faults.ts';
import type { PlannedUser } from './plan.ts';

/** A deposit deliberately waiting on a long cool-down, with its item. */
export interface WaitingDeposit {
  run: DepositRun;
  item: DepositItem;
}

export function checkStates(scope: AuditScope) {
  const { input, items, name, finding } = scope;
  const notCreated: string[] = [];
  const stalled: string[] = [];
  const harness: string[] = [];
  const unexplained: string[] = [];
  const unansweredButDone: string[] = [];
  const outcomes = { done: 0, failed: 0, waiting: 0, stalled: 0 };
  const failedByType: Record<string, number> = {};
  const waiting: WaitingDeposit[] = [];
  for (const run of input.runs) {
    harness.push(...run.findings.map((text) => `${name(run)}: ${text}`));
    const item = run.id ? items.get(run.id) : undefined;
    if (!run.id || !item) {
      notCreated.push(name(run));
      continue;
    }
    const user = input.plan.users[run.plan.userIndex] as PlannedUser;
    if (run.outcome === 'stalled') {
      // Given up at the harness's deadline (or after the clock's jump past the long cool-downs): too
      // long, whatever became of it afterwards, when nothing answered its questions any more.
      outcomes.stalled += 1;
      stalled.push(`${name(run)} given up while ${item.status} at ${item.step}; history: ${wayOf(item)}`);
      continue;
    }
    if (item.status === 'done' || item.status === 'failed') {
      if (item.status === 'done') outcomes.done += 1;
      else {
        outcomes.failed += 1;
        const type = item.failure?.type ?? '(none)';
        failedByType[type] = (failedByType[type] ?? 0) + 1;
        // An unknown outcome is judged by its own evidence (`audit-evidence.ts`), not here; an
        // ambiguous beneficiary at a masked bank by what its user's deposits did (`audit-beneficiaries.ts`).
        const explained =
          explainedFailures(user, run.plan).has(type) ||
          needsEvidence(type) ||
          (type === 'BENEFICIARY_AMBIGUOUS' && ambiguityExplained(scope, run));
        if (!explained) {
          const copies = run.copies.length > 0 ? ` (copies sent: ${run.copies.join(' ')})` : '';
          unexplained.push(
            `${name(run)} ${type}: ${item.failure?.msg ?? ''}${copies}; history: ${wayOf(item)}`,
          );
        }
      }
      if (
        item.status === 'done' &&
        // A deposit asked a question nobody answered cannot be done (a repeat deposit at a bank that
        // asks on its reads may be asked nothing: its bank and beneficiary are remembered).
        (run.plan.belowMinimum || (run.plan.answers === 'never' && run.asked))
      ) {
        unansweredButDone.push(name(run));
      }
      continue;
    }
    const wake = Math.max(
      item.step === 'wait-cooldown' ? (item.cooldownUntil ?? 0) : 0,
      item.beneficiaryWork?.lookupAt ?? 0,
      item.beneficiaryWork?.sleepsUntil ?? 0,
    );
    const deliberate =
      user.bank.longCoolDown &&
      item.status === 'initialized' &&
      wake > input.now + input.parkAfterMs &&
      item.checkAt !== undefined &&
      item.checkAt >= wake;
    if (deliberate) {
      outcomes.waiting += 1;
      waiting.push({ run, item });
      continue;
    }
    outcomes.stalled += 1;
    const last = item.history.at(-1);
    stalled.push(
      `${name(run)} ${item.status} at ${item.step} v${item.version}, last moved ${Math.round((input.now - (last?.at ?? 0)) / 1000)} s ago${last?.note ? ` (${last.note})` : ''}`,
    );
  }
  finding('deposits not accepted or not in the table', notCreated);
  finding(
    'deposits stalled: neither done, failed, nor deliberately waiting; or given up at the deadline',
    stalled,
  );
  finding('deposits failed with a type no injected fault explains', unexplained);
  finding(
    'deposits done that had to fail (below the minimum, or a question nobody answered)',
    unansweredButDone,
  );
  finding('harness findings (the API answered out of contract)', harness);
  return { outcomes, failedByType, waiting };
}

/** A deposit's way, each entry's time from its creation: what the next person reads first. */
function wayOf(item: DepositItem): string {
  const start = item.history[0]?.at ?? 0;
  return item.history
    .map(
      (entry) =>
        `${entry.step}/${entry.status}${entry.note ? ` (${entry.note})` : ''} +${entry.at - start} ms`,
    )
    .join(' > ');
}

/** The bank's questions: deposits asked, answers sent and retried, left unanswered, expired. */
export function questionFigures({ input, items }: AuditScope) {
  const asked = input.runs.filter((run) => run.asked);
  const never = input.runs.filter((run) => run.plan.answers === 'never');
  const expired = input.runs.filter((run) => run.id && items.get(run.id)?.failure?.type === 'INPUT_EXPIRED');
  return {
    depositsAsked: asked.length,
    answersSent: input.runs.reduce((sum, run) => sum + run.answersSent, 0),
    answerRetries: input.runs.reduce((sum, run) => sum + run.answerErrors, 0),
    leftUnanswered: never.length,
    leftUnansweredAndAsked: never.filter((run) => run.asked).length,
    inputExpired: expired.length,
  };
}

/** The deposits deliberately waiting, and how many have their wake-up armed in the local scheduler. */
export function waitingFigures({ input }: AuditScope, waiting: WaitingDeposit[]) {
  return {
    deposits: waiting.length,
    withScheduleArmed: waiting.filter(({ run }) => run.id && input.scheduledDeposits.has(run.id)).length,
  };
}
