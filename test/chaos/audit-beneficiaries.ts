/**
 * The beneficiaries check of the audit, from the provider's side:
 *   - each connection the bank lists (where its list can be trusted now) holds at most one wallet
 *     beneficiary, and exactly one once a deposit of its user is done (decoys left out);
 *   - the bank was asked to create the wallet's beneficiary at most once per connection (one wallet
 *     account per user here), one more for each recorded reason below;
 *   - no deposit took a decoy (`decoys.ts`) for the wallet's beneficiary, and every kind of decoy the
 *     plan set was met: a deposit of a user with it got done (its beneficiary found past the decoy).
 *
 * The count is the sandbox's (`beneficiaryCreations` of `POST /sandbox/users/get`: every call that
 * reached the bank's creation), never the orchestrator's. A creation, for this check, is a call for
 * the wallet's IBAN that the bank decided on its merits: `created`, or refused
 * `BENEFICIARY_ALREADY_EXISTS` (a bank that does not check, as the spec does not promise it does,
 * would have made a second beneficiary). Not creations: a call that only asked the bank's questions
 * (its answered call is the one counted), any other refusal, and a call a fault stopped before the
 * bank saw it (not recorded).
 *
 * The orchestrator creates again only on these paths (`shared/deposits/steps/ensure-beneficiary.ts`,
 * `transfer-outcomes.ts`), each leaving its mark in a deposit's history; each allows one more:
 *   1. its answered creation refused as spent and not in the list (it never ran): created again,
 *      'the answered creation did not run: creating it again';
 *   2. the bank said at the transfer that the beneficiary is gone (INVALID_BENEFICIARY_ID): the
 *      deposit registers it again, 'the bank says the beneficiary is gone: registering it again';
 *   3. a deposit failed INVALID_BENEFICIARY_ID or BENEFICIARY_DETAILS_MISMATCH: our record of the
 *      beneficiary was forgotten with it, and the next deposit registers it again;
 *   4. a deposit failed BENEFICIARY_UNRESOLVED or BENEFICIARY_AMBIGUOUS (our record goes with a
 *      beneficiary whose id was never found): the next may create again, and the bank says it exists;
 *   5. a creation whose answer was lost: its step heard nothing readable (a 5xx or a timeout: a
 *      'provider ...' retry at ensure-beneficiary) or its workers' process died while it stood at
 *      ensure-beneficiary (at any crash point, its own or another deposit's: a process killed takes
 *      every step it has in hand; or the restart). Run again, the step finds it in the list where
 *      the list shows it; where it cannot (a bank that hides new beneficiaries), it creates again
 *      and hears BENEFICIARY_ALREADY_EXISTS.
 *
 * At a bank that masks accounts, BENEFICIARY_AMBIGUOUS is what the orchestrator promises only where
 * nothing tells the wallet's entry apart (docs/deposits.md): its own creation is the one new entry
 * after it, decoys or not, unless our record of what fitted before it is gone (paths 1 to 4). So a
 * deposit there failing BENEFICIARY_AMBIGUOUS is explained once its user's record was forgotten
 * (`ambiguityExplained`, which `audit-states.ts` asks), and not for a decoy alone.
 */
import type { Death } from '#infra/local/crash-points';
import { localWallets } from '#infra/local/wallets';
import { normalizeIban } from '#shared/iban';
import type { AuditInput, AuditScope, DepositRun } from './audit.ts';
import type { DepositItem } from './clients.ts';
import { inLocalTime } from './clock-jumps.ts';
import { type DecoyKind, decoyKinds } from './decoys.ts';
import type { PlannedUser } from './plan.ts';

/** The history notes of the paths that create the beneficiary again (1 and 2 above). */
export const notes = {
  createdAgain: 'the answered creation did not run: creating it again',
  registeredAgain: 'the bank says the beneficiary is gone: registering it again',
} as const;

/** Failures that forget our record of the beneficiary: the next deposit may create it again (3, 4). */
const FORGETTING = new Set([
  'INVALID_BENEFICIARY_ID',
  'BENEFICIARY_DETAILS_MISMATCH',
  'BENEFICIARY_UNRESOLVED',
  'BENEFICIARY_AMBIGUOUS',
]);

export function checkBeneficiaries(scope: AuditScope) {
  const { input, items, finding } = scope;
  const itemOf = (run: DepositRun | undefined) => (run?.id ? items.get(run.id) : undefined);
  const beneficiaryFindings: string[] = [];
  let maxBeneficiaries = 0;
  for (const [userIndex, count] of input.beneficiaries) {
    maxBeneficiaries = Math.max(maxBeneficiaries, count);
    const user = input.plan.users[userIndex] as PlannedUser;
    const anyDone = user.deposits.some((deposit) => itemOf(input.runs[deposit.index])?.status === 'done');
    if (count > 1 || (anyDone && count !== 1)) {
      beneficiaryFindings.push(
        `user ${userIndex} ${user.bank.bankId}: ${count} wallet beneficiaries${anyDone ? ' (a deposit is done)' : ''}`,
      );
    }
  }
  finding('connections without exactly one wallet beneficiary', beneficiaryFindings);

  const creations = checkCreations(scope);

  // Decoys: never taken for the wallet's beneficiary; each kind the plan set met.
  const tookDecoy: string[] = [];
  const met = new Set<DecoyKind>();
  const planned = new Set<DecoyKind>();
  let decoyedUsers = 0;
  let decoyedDeposits = 0;
  let failedAmbiguous = 0;
  for (const userRun of input.users) {
    const decoys = userRun.decoys ?? [];
    for (const kind of userRun.plan.decoys ?? []) planned.add(kind);
    if (decoys.length === 0) continue;
    decoyedUsers += 1;
    const decoyIds = new Set(decoys.map((decoy) => decoy.id));
    for (const deposit of userRun.plan.deposits) {
      const run = input.runs[deposit.index] as DepositRun;
      const item = itemOf(run);
      decoyedDeposits += 1;
      if (item?.failure?.type === 'BENEFICIARY_AMBIGUOUS') failedAmbiguous += 1;
      const taken = (item as { beneficiaryId?: string } | undefined)?.beneficiaryId;
      if (taken && decoyIds.has(taken)) tookDecoy.push(`${scope.name(run)}: beneficiary ${taken}, a decoy`);
      if (item?.status === 'done') for (const decoy of decoys) met.add(decoy.kind);
    }
  }
  finding("deposits that took a decoy for the wallet's beneficiary", tookDecoy);
  finding(
    'decoy kinds the plan set that no deposit met (none of its users’ deposits done)',
    [...planned].filter((kind) => !met.has(kind)).sort(),
  );

  return {
    connectionsListed: input.beneficiaries.size,
    mostPerConnection: maxBeneficiaries,
    creations,
    decoys: {
      users: decoyedUsers,
      deposits: decoyedDeposits,
      kindsMet: decoyKinds.filter((kind) => met.has(kind)),
      failedAmbiguous,
    },
  };
}

/** The creations of each user's beneficiary the bank saw, against the reasons its deposits recorded. */
function checkCreations(scope: AuditScope) {
  const { input, items, name, finding } = scope;
  const unexplained: string[] = [];
  const totals = { connections: 0, created: 0, refusedExisting: 0, asked: 0, otherRefusals: 0 };
  let moreThanOnce = 0;
  let most = 0;
  for (const userRun of input.users) {
    const user = userRun.plan;
    const calls = input.ledgers.get(user.index)?.beneficiaryCreations;
    if (!user.bank.beneficiaries || !calls) continue;
    const wallet = localWallets.find((candidate) => candidate.id === user.bank.walletAccountID);
    const iban = wallet ? normalizeIban(wallet.iban) : undefined;
    const walletCalls = calls.filter((call) => normalizeIban(call.iban) === iban);
    const counted = walletCalls.filter(
      (call) =>
        call.outcome === 'created' ||
        (call.outcome === 'refused' && call.type === 'BENEFICIARY_ALREADY_EXISTS'),
    );
    totals.connections += walletCalls.length > 0 ? 1 : 0;
    totals.created += counted.filter((call) => call.outcome === 'created').length;
    totals.refusedExisting += counted.length - counted.filter((call) => call.outcome === 'created').length;
    totals.asked += walletCalls.filter((call) => call.outcome === 'asked').length;
    totals.otherRefusals += walletCalls.filter(
      (call) => call.outcome === 'refused' && call.type !== 'BENEFICIARY_ALREADY_EXISTS',
    ).length;
    most = Math.max(most, counted.length);
    if (counted.length <= 1) continue;
    moreThanOnce += 1;
    // Its deposits and its payment source, which registers the beneficiary as a deposit does.
    const runs = user.deposits.map((deposit) => input.runs[deposit.index] as DepositRun);
    const sourceId = input.sources.find((source) => source.userIndex === user.index)?.id;
    const source = sourceId ? items.get(sourceId) : undefined;
    const own = [
      ...runs.map((run) => ({ named: name(run), item: run.id ? items.get(run.id) : undefined })),
      ...(source ? [{ named: `source ${source.id}`, item: source }] : []),
    ];
    const reasons = creationReasons(
      own.flatMap(({ item }) => (item ? [item] : [])),
      input.crashes.deaths,
      input.clockJumps,
    );
    if (counted.length <= 1 + reasons.length) continue;
    const seen = counted
      .map((call) => `${call.outcome}${call.type ? ` ${call.type}` : ''} (${call.jobID} at ${call.at})`)
      .join(', ');
    const ways = own.map(
      ({ named, item }) =>
        `${named} ${item?.status ?? '?'}${item?.failure ? ` ${item.failure.type}` : ''}: ${storyOf(item)}`,
    );
    const ids = new Set(own.map(({ item }) => item?.id));
    const deaths = input.crashes.deaths
      .filter((death) => ids.has(death.depositId) || death.point === 'killed')
      .map(
        (death) =>
          `${death.point} at ${death.step} ${death.depositId ?? ''} ${new Date(death.at).toISOString()}`,
      );
    unexplained.push(
      `user ${user.index} ${user.bank.bankId}: ${counted.length} creations [${seen}] for ${reasons.length} recorded reasons [${reasons.join('; ')}]; its deposits and source: ${ways.join(' | ')}; deaths: ${deaths.join(', ') || 'none'}`,
    );
  }
  finding(
    'connections whose beneficiary the bank was asked to create again without a recorded reason',
    unexplained,
  );
  return { ...totals, connectionsMoreThanOnce: moreThanOnce, mostPerConnection: most };
}

/**
 * The reasons a user's deposits (and its payment source) recorded to create its beneficiary again
 * (paths 1 to 5 above). A workers' process killed takes every step it had in hand, whoever's crash
 * point it was: a death is one reason if one of them stood at ensure-beneficiary then (once,
 * however many did).
 */
function creationReasons(own: DepositItem[], deaths: Death[], jumps: AuditInput['clockJumps']): string[] {
  const reasons: string[] = [];
  for (const item of own) {
    for (const entry of item.history) {
      if (entry.note === notes.createdAgain || entry.note === notes.registeredAgain)
        reasons.push(`${item.id}: ${entry.note}`);
      else if (entry.step === 'ensure-beneficiary' && entry.note?.startsWith('provider '))
        reasons.push(`${item.id}: a creation's answer may be lost (${entry.note})`);
    }
    if (item.status === 'failed' && FORGETTING.has(item.failure?.type ?? ''))
      reasons.push(`${item.id}: failed ${item.failure?.type}, our record forgotten`);
  }
  for (const death of deaths) {
    // The deaths are in real time, the histories in the stack's clock, which the run moved on.
    const at = inLocalTime(death.at, jumps);
    const there = own.find(
      (item) =>
        (death.depositId === item.id && death.step === 'ensure-beneficiary') ||
        stepAt(item, at) === 'ensure-beneficiary',
    );
    if (there)
      reasons.push(
        `${there.id} at ensure-beneficiary when a workers' process died (${death.point} at ${death.step})`,
      );
  }
  return reasons;
}

/** The step a deposit stood at, at `at` (its history's last entry by then). */
function stepAt(item: DepositItem, at: number): string | undefined {
  return item.history.filter((entry) => entry.at <= at).at(-1)?.step;
}

/**
 * Whether a deposit's BENEFICIARY_AMBIGUOUS is what the orchestrator promises: at a bank that masks
 * accounts, once its user's record of the beneficiary was forgotten (another deposit failed a type
 * that forgets it, or one registered it again), so nothing tells the wallet's entry apart.
 */
export function ambiguityExplained({ input, items }: AuditScope, run: DepositRun): boolean {
  const user = input.plan.users[run.plan.userIndex];
  if (!user?.bank.masksAccounts) return false;
  return user.deposits.some((deposit) => {
    const other = input.runs[deposit.index];
    const item = other?.id ? items.get(other.id) : undefined;
    if (!item) return false;
    const forgot = item.history.some(
      (entry) => entry.note === notes.createdAgain || entry.note === notes.registeredAgain,
    );
    return forgot || (other !== run && item.status === 'failed' && FORGETTING.has(item.failure?.type ?? ''));
  });
}

/** A deposit's way, briefly: each entry's step, status, note and time. */
function storyOf(item: DepositItem | undefined): string {
  return (item?.history ?? [])
    .map(
      (entry) =>
        `${entry.step}/${entry.status}${entry.note ? ` "${entry.note}"` : ''} ${new Date(entry.at).toISOString().slice(11, 23)}`,
    )
    .join(' > ');
}

/**
 * The deposits' ways, from their histories: those that started at the transfer (the known route:
 * 'bank and beneficiary remembered' at a bank that takes beneficiaries, 'bank remembered' at one
 * that does not), per bank; and the questions asked again, the creations made again (path 1) and the
 * registrations made again (path 2).
 */
export function routeFigures({ input, items }: AuditScope) {
  const byBank: Record<string, string> = {};
  const known = { bankAndBeneficiaryRemembered: 0, bankRemembered: 0 };
  const again = { reasks: 0, recreations: 0, reregistrations: 0 };
  const perBank = new Map<string, { known: number; deposits: number }>();
  for (const run of input.runs) {
    const item = run.id ? items.get(run.id) : undefined;
    const bankId = input.plan.users[run.plan.userIndex]?.bank.bankId ?? '?';
    const counts = perBank.get(bankId) ?? { known: 0, deposits: 0 };
    perBank.set(bankId, counts);
    if (!item) continue;
    counts.deposits += 1;
    const first = item.history[0]?.note ?? '';
    if (first.startsWith('bank and beneficiary remembered')) known.bankAndBeneficiaryRemembered += 1;
    else if (first.startsWith('bank remembered')) known.bankRemembered += 1;
    if (/^bank (and beneficiary )?remembered/.test(first)) counts.known += 1;
    for (const entry of item.history) {
      if (entry.note?.endsWith(': asking again')) again.reasks += 1;
      else if (entry.note === notes.createdAgain) again.recreations += 1;
      else if (entry.note === notes.registeredAgain) again.reregistrations += 1;
    }
  }
  for (const [bankId, counts] of [...perBank].sort(([a], [b]) => a.localeCompare(b)))
    byBank[bankId] = `${counts.known} of ${counts.deposits}`;
  return { ...known, byBank, ...again };
}
