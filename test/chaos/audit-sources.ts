/**
 * The payment sources' check of the audit: every source accepted ended ready, or failed (cancelled
 * included) with a type its user's faults explain; a cancel answered 2xx left it failed CANCELLED;
 * its end reached the receiver (`source.ready`, `source.failed`), signed; no credentials stay on it;
 * and no deposit that followed a source's wake-up waited past that instant by more than the stall
 * time (and a margin for a loaded machine): a source that died, lost its schedule or was cancelled
 * still hands its followers on.
 */

import type { AuditScope, SourceRun } from './audit.ts';
import { sealedKeptBy } from './audit-secrets.ts';
import type { DepositItem } from './clients.ts';
import { realDelay } from './clock-jumps.ts';
import { explainedSourceFailures } from './faults.ts';
import type { PlannedUser } from './plan.ts';

const FOLLOWING = /^waiting for the payment source's wake-up at (.+)$/;

export function checkSources(
  { input, items, name, finding }: AuditScope,
  stallAfterMs: number,
  slackMs: number,
) {
  const notEnded: string[] = [];
  const unexplained: string[] = [];
  const cancelledButOther: string[] = [];
  const unheard: string[] = [];
  const sealed: string[] = [];
  const lateFollowers: string[] = [];
  const harnessFailed: string[] = [];
  const outcomes = { ready: 0, failed: 0, cancelled: 0, notEnded: 0 };
  let longestOvershootMs = 0;
  let followerWaits = 0;
  const nameOf = (run: SourceRun) => {
    const user = input.plan.users[run.userIndex];
    return `source ${run.id ?? '(not created)'} [user ${run.userIndex} ${user?.bank.bankId}]`;
  };
  for (const run of input.sources) {
    const user = input.plan.users[run.userIndex] as PlannedUser;
    const item = run.id ? items.get(run.id) : undefined;
    if (!run.id || !item) {
      notEnded.push(`${nameOf(run)}: not accepted (${run.findings.join('; ')})`);
      continue;
    }
    if (item.status !== 'done' && item.status !== 'failed') {
      outcomes.notEnded += 1;
      notEnded.push(`${nameOf(run)} ${item.status} at ${item.step} v${item.version}; ${wayOf(item)}`);
      continue;
    }
    if (run.findings.length > 0) harnessFailed.push(`${nameOf(run)}: ${run.findings.join('; ')}`);
    const type = item.failure?.type;
    if (item.status === 'done') outcomes.ready += 1;
    else if (type === 'CANCELLED') outcomes.cancelled += 1;
    else outcomes.failed += 1;
    const cancelledOk = run.cancel !== undefined && run.cancel.status >= 200 && run.cancel.status < 300;
    if (type && !explainedSourceFailures(user, run.cancel !== undefined).has(type))
      unexplained.push(`${nameOf(run)} ${type}: ${item.failure?.msg ?? ''}`);
    if (cancelledOk && type !== 'CANCELLED')
      cancelledButOther.push(`${nameOf(run)} is ${item.status} ${type ?? ''}`);
    const ending = item.status === 'done' ? 'source.ready' : 'source.failed';
    if (!input.deliveries.some((d) => d.verified && d.depositId === run.id && d.type === ending))
      unheard.push(`${nameOf(run)} ${item.status} ${type ?? ''}`);
    if (sealedKeptBy(input, item).length > 0) sealed.push(nameOf(run));

    // Its followers: each wait for its wake-up ended within the stall time of its instant.
    for (const deposit of user.deposits) {
      const follower = input.runs[deposit.index];
      const followed = follower?.id ? items.get(follower.id) : undefined;
      for (const wait of followerWaitsOf(followed)) {
        followerWaits += 1;
        // In real time: the clock's jumps (the day-long cool-downs, the waits after them) took none.
        const overshoot = realDelay(wait.instant, wait.movedAt, input.clockJumps);
        longestOvershootMs = Math.max(longestOvershootMs, overshoot);
        if (overshoot > stallAfterMs + slackMs && follower)
          lateFollowers.push(
            `${name(follower)} moved ${Math.round(overshoot / 1000)} s after its source's instant`,
          );
      }
    }
  }
  finding('payment sources that never ended (ready, failed or cancelled)', notEnded);
  finding('payment sources failed with a type no injected fault explains', unexplained);
  finding('payment source cancels answered 2xx whose source is not failed CANCELLED', cancelledButOther);
  finding('payment sources whose end never reached the webhook receiver (verified)', unheard);
  finding('payment sources ended with their credentials or answers still on record', sealed);
  finding("deposits that waited for a source's wake-up past its instant and the stall time", lateFollowers);
  finding('payment sources the harness failed to drive as planned', harnessFailed);
  // The planned kinds happened: a schedule lost, a source failed.
  const planned = input.plan.users.filter((user) => user.source);
  const losers = input.sources.filter((run) => input.plan.users[run.userIndex]?.source?.losesSchedule);
  if (losers.length > 0 && !losers.some((run) => run.scheduleDeleted || run.scheduleNeverArmed))
    finding('payment source faults planned that never happened', [
      `no source lost its own schedule: ${losers.map((run) => `${nameOf(run)} ${run.outcome}, ${wayOf(run.id ? items.get(run.id) : undefined)}`).join('; ')}`,
    ]);
  if (planned.some((user) => user.source?.fails) && outcomes.failed === 0)
    finding('payment source faults planned that never happened', ['no source failed']);
  return {
    sources: input.sources.length,
    outcomes,
    schedulesLost: input.sources.filter((run) => run.scheduleDeleted).length,
    wakeUpsNeverArmed: input.sources.flatMap((run) =>
      run.scheduleNeverArmed ? [`${run.id}: ${run.scheduleNeverArmed}`] : [],
    ),
    stalledWaits: input.sources.flatMap((run) => (run.stalledAt ? [`${run.id}: ${run.stalledAt}`] : [])),
    cancels: input.sources.filter((run) => run.cancel).length,
    followerWaits,
    longestFollowerOvershootS: Number((longestOvershootMs / 1000).toFixed(1)),
  };
}

/** A deposit's waits on a source's wake-up: the instant it waited for, and when it next moved. */
function followerWaitsOf(item: DepositItem | undefined) {
  const waits: { instant: number; movedAt: number }[] = [];
  const history = item?.history ?? [];
  history.forEach((entry, index) => {
    const instant = Date.parse(FOLLOWING.exec(entry.note ?? '')?.[1] ?? '');
    const next = history[index + 1];
    if (Number.isFinite(instant) && next) waits.push({ instant, movedAt: next.at });
  });
  return waits;
}

/** A source's way through its steps, for a finding: each step, status and note, and when. */
function wayOf(item: DepositItem | undefined) {
  const start = item?.history[0]?.at ?? 0;
  const way = (item?.history ?? []).map(
    (entry) => `${entry.step}/${entry.status}${entry.note ? ` (${entry.note})` : ''} +${entry.at - start} ms`,
  );
  return `history: ${way.join(' > ') || '(none)'}`;
}
