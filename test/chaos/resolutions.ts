/**
 * The operator's part after a chaos run's deposits settle: every deposit that failed
 * TRANSFER_OUTCOME_UNKNOWN is resolved as a real operator would, from the bank's ledger (the sandbox's,
 * which names each deposit by its amount): `done` with the transfer's reference when the money moved,
 * `failed` when it did not. The audit then checks every resolve against the same ledger.
 */
import { toMinorUnits } from '#shared/money';
import type { DepositRun, UserRun } from './audit.ts';
import type { RunContext } from './context.ts';

export async function resolveUnknownOutcomes(context: RunContext, users: UserRun[]) {
  const { clients } = context;
  for (const user of users) {
    const connection = user.connection;
    if (!connection) continue;
    const runs = user.plan.deposits
      .map((deposit) => context.runs[deposit.index] as DepositRun)
      .filter((run) => run.id !== undefined);
    let ledger: Awaited<ReturnType<typeof clients.ledger>> | undefined;
    for (const run of runs) {
      const item = await clients.depositItem(run.id as string);
      if (item?.status !== 'failed' || item.failure?.type !== 'TRANSFER_OUTCOME_UNKNOWN') continue;
      ledger ??= await clients.ledger(connection);
      const moved = ledger.transfers.find(
        (transfer) => toMinorUnits(transfer.amount, user.plan.bank.currency) === run.plan.amountMinor,
      );
      const outcome = moved ? 'done' : 'failed';
      const reason = moved ? `The bank's ledger shows ${moved.reference}` : 'The bank has no transfer of it';
      const answer = await clients.operator.resolve(run.id as string, outcome, reason, moved?.reference);
      run.resolved = { outcome, status: answer.status, unknown: item.failure.msg };
    }
  }
}
