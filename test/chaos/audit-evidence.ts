/**
 * The evidence check of the audit: the faults the run planned happened, and an unknown outcome has a
 * cause of its own.
 *   - every crash point the plan armed went off at least once (a kill of a step workers' process,
 *     SIGKILL, or the lost answer of a write), and the processes killed are counted;
 *   - every kind of provider fault the plan set went off at least once across the run (fired: a
 *     counted rule's `times` less the `remaining` the sandbox tells after the run). Per run, not per
 *     user: a user's rule may rightly never fire (its deposits ended before the call, or took the
 *     known route past it: a remembered bank asks no metadata), while the plan places each kind
 *     on users enough that every kind fires somewhere (`faults.ts`'s coverage). Rules without a
 *     count (latency) are not counted;
 *   - a deposit whose transfer outcome was unknown (`TRANSFER_OUTCOME_UNKNOWN`, or the operator's
 *     resolve of one) passes only with evidence of its own: a step workers' process died while its
 *     transfer attempt was on record and its outcome not yet (`attemptsOpen` of a death), or its
 *     transfer's submission answered nothing readable (a 5xx or a timeout, before or after the bank
 *     acted: the orchestrator cannot tell which), or a DynamoDB fault met its connection's calls in
 *     the process that had its attempt open (`inAttempts` of the DynamoDB faults' report: the write of
 *     its outcome may have failed, or come too late). The figures name how many of each; and a lost
 *     answer names a deposit whose outcome was unknown (else it went to the wrong deposit);
 *   - every kind of DynamoDB fault the plan armed went off at least once (the stack counts each call
 *     it answered), as the crash points do.
 */
import type { Death, LostAnswer } from '#infra/local/crash-points';
import type { DynamoDbFaultReport } from '#infra/local/dynamodb-faults';
import type { AuditScope, Ledger } from './audit.ts';
import type { ChaosPlan } from './plan.ts';

/** What the local stack's crash points reported after the run. */
export interface CrashReport {
  fired: Record<string, number>;
  armed: number;
  deaths: Death[];
  lostAnswers: LostAnswer[];
}

/** Each deposit's evidence that its transfer's outcome could be unknown, by deposit id. */
export function unknownOutcomeEvidence(
  report: CrashReport,
  dynamoDb?: DynamoDbFaultReport,
): Map<string, string> {
  const evidence = new Map<string, string>();
  for (const death of report.deaths)
    for (const id of death.attemptsOpen)
      evidence.set(id, `its workers' process was killed (${death.point}) with its transfer attempt open`);
  for (const lost of report.lostAnswers)
    if (lost.depositId && !evidence.has(lost.depositId))
      evidence.set(lost.depositId, `its transfer's answer was lost (${lost.reason})`);
  for (const fault of dynamoDb?.inAttempts ?? [])
    for (const id of fault.depositIds)
      if (!evidence.has(id))
        evidence.set(id, `a DynamoDB fault (${fault.kind}) with its transfer attempt open`);
  return evidence;
}

/**
 * How often each kind of counted provider fault went off, over the run: each rule as often as it has
 * used up (`times` less `remaining`, as the sandbox answers the user's rules after the run), and the
 * kinds the plan set that never did.
 */
export function providerFaultsFired(plan: ChaosPlan, ledgers: Map<number, Ledger>) {
  const fired: Record<string, number> = {};
  const planned = new Set<string>();
  for (const user of plan.users) {
    const rules = ledgers.get(user.index)?.faults;
    user.providerFaults.forEach((fault, index) => {
      const rule = rules?.[index];
      if (fault.rule.times === undefined || rule?.times === undefined) return;
      planned.add(fault.kind);
      const used = rule.times - (rule.remaining ?? rule.times);
      if (used > 0) fired[fault.kind] = (fired[fault.kind] ?? 0) + used;
    });
  }
  return { fired, neverFired: [...planned].filter((kind) => !fired[kind]).sort() };
}

const UNKNOWN = new Set(['TRANSFER_OUTCOME_UNKNOWN', 'TRANSFER_NOT_EXECUTED']);

/** Whether this failure type is one of an unknown outcome (or its resolve), which needs evidence. */
export const needsEvidence = (type: string | undefined) => type !== undefined && UNKNOWN.has(type);

export function checkEvidence(
  { input, items, name, finding }: AuditScope,
  report: CrashReport,
  evidence: Map<string, string>,
  kills: { planned: number; unplanned: number } | undefined,
) {
  const planned = new Set(input.plan.users.flatMap((user) => user.crashes.map((crash) => crash.point)));
  const neverFired = [...planned].filter((point) => !(report.fired[point] ?? 0)).sort();
  finding('crash points the plan armed that never went off', neverFired);

  // Each kind of DynamoDB fault the plan armed answered at least one call.
  const dynamoDbFired = input.dynamoDbFaults?.fired ?? {};
  const dynamoDbPlanned = new Set(
    input.plan.users.flatMap((user) => (user.dynamoDbFaults ?? []).map((fault) => fault.kind)),
  );
  finding(
    'DynamoDB fault kinds the plan armed that never went off',
    [...dynamoDbPlanned].filter((kind) => !dynamoDbFired[kind]).sort(),
  );

  const { fired: faultsFired, neverFired: faultsNeverFired } = providerFaultsFired(input.plan, input.ledgers);
  finding('provider fault kinds the plan set that never went off', faultsNeverFired);

  const withoutEvidence: string[] = [];
  const unknownIds = new Set<string>();
  const byCause = { killedWithAttemptOpen: 0, answerLost: 0, dynamoDbFault: 0 };
  for (const run of input.runs) {
    const item = run.id ? items.get(run.id) : undefined;
    const unknown =
      run.resolved !== undefined || (item?.status === 'failed' && needsEvidence(item.failure?.type));
    if (!unknown || !run.id) continue;
    unknownIds.add(run.id);
    const cause = evidence.get(run.id);
    const why = run.resolved
      ? `unknown (${run.resolved.unknown}), resolved ${run.resolved.outcome}`
      : `${item?.failure?.type}: ${item?.failure?.msg}`;
    const story = (item?.history ?? [])
      .slice(-8)
      .map((entry) => `${entry.step}/${entry.status}@${entry.at}${entry.note ? ` "${entry.note}"` : ''}`)
      .join(' > ');
    if (!cause) withoutEvidence.push(`${name(run)} ${why} [${story}] copies: ${run.copies.join(' ')}`);
    else if (cause.startsWith('its workers')) byCause.killedWithAttemptOpen += 1;
    else if (cause.startsWith('a DynamoDB fault')) byCause.dynamoDbFault += 1;
    else byCause.answerLost += 1;
  }
  finding(
    'unknown transfer outcomes without evidence of their own (a death or a lost answer)',
    withoutEvidence,
  );

  // A lost answer is its own submission's: that deposit's outcome was unknown. One that names another
  // would leave the deposit that lost it without evidence, and pass one that needed none.
  finding(
    'lost transfer answers naming a deposit whose outcome was known (the evidence went to another)',
    report.lostAnswers
      .filter((lost) => !lost.depositId || !unknownIds.has(lost.depositId))
      .map((lost) => `${lost.depositId ?? 'no deposit'} (${lost.reason})`),
  );

  const deathsByPoint: Record<string, number> = {};
  for (const death of report.deaths) deathsByPoint[death.point] = (deathsByPoint[death.point] ?? 0) + 1;
  return {
    workersKilled: kills ?? 'the step workers ran in the stack’s process',
    deathsByPoint,
    crashPointsFired: report.fired,
    dynamoDbFaultsFired: dynamoDbFired,
    providerFaultsFired: faultsFired,
    transferAnswersLost: report.lostAnswers.length,
    unknownOutcomeEvidence: byCause,
  };
}
