/**
 * The owners' cancels and the operator's hands, against the bank's ledger: a cancel answered 2xx left
 * its deposit failed CANCELLED with nothing moved, ever; every resolve was accepted and agrees with
 * the ledger (done exactly when the money moved); and the figures of cancels, redrives and resolves.
 */
import { toMinorUnits } from '#shared/money';
import type { AuditScope, DepositRun } from './audit.ts';
import type { PlannedUser } from './plan.ts';

export function checkOperations({ input, items, name, finding }: AuditScope) {
  const cancelledButOther: string[] = [];
  const cancelledButMoved: string[] = [];
  const resolvesRefused: string[] = [];
  const resolvesWrong: string[] = [];
  const cancels: Record<string, number> = {};
  const redrives: Record<string, number> = {};
  const resolves = { done: 0, failed: 0 };
  for (const run of input.runs as DepositRun[]) {
    for (const [answer, count] of Object.entries(run.operatorRedrives)) {
      redrives[answer] = (redrives[answer] ?? 0) + count;
    }
    const item = run.id ? items.get(run.id) : undefined;
    const user = input.plan.users[run.plan.userIndex] as PlannedUser;
    const ledger = input.ledgers.get(user.index);
    const moved = (ledger?.transfers ?? []).filter(
      (transfer) => toMinorUnits(transfer.amount, user.bank.currency) === run.plan.amountMinor,
    );
    if (run.cancel) {
      const answer = run.cancel.type ? `${run.cancel.status} ${run.cancel.type}` : String(run.cancel.status);
      cancels[answer] = (cancels[answer] ?? 0) + 1;
      if (run.cancel.status >= 200 && run.cancel.status < 300) {
        if (item?.status !== 'failed' || item.failure?.type !== 'CANCELLED') {
          cancelledButOther.push(`${name(run)} is ${item?.status} ${item?.failure?.type ?? ''}`);
        }
        if (moved.length > 0)
          cancelledButMoved.push(`${name(run)}: ${moved.map((t) => t.reference).join(', ')}`);
      }
    }
    if (run.resolved) {
      resolves[run.resolved.outcome] += 1;
      if (run.resolved.status !== 200) resolvesRefused.push(`${name(run)} answered ${run.resolved.status}`);
      const agrees = (run.resolved.outcome === 'done') === moved.length > 0;
      const settled =
        run.resolved.outcome === 'done'
          ? item?.status === 'done'
          : item?.status === 'failed' && item.failure?.type === 'TRANSFER_NOT_EXECUTED';
      if (!agrees || !settled) {
        resolvesWrong.push(
          `${name(run)} resolved ${run.resolved.outcome}, ${moved.length} transfers, now ${item?.status}`,
        );
      }
    }
  }
  finding('cancels answered 2xx whose deposit is not failed CANCELLED', cancelledButOther);
  finding('cancels answered 2xx whose money moved', cancelledButMoved);
  finding('operator resolves not accepted', resolvesRefused);
  finding("operator resolves that disagree with the bank's ledger", resolvesWrong);
  return { cancels, operatorRedrives: redrives, operatorResolves: resolves };
}
