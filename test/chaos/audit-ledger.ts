/**
 * The ledger check of the audit, against each user's ledger in the sandbox: at most one transfer
 * per deposit, exactly one of its reference per done deposit, of the right amount and currency; no
 * transfer that no deposit asked for; money moved only for a deposit that is done or
 * TRANSFER_OUTCOME_UNKNOWN; every account's balance its opening less what moved; and every transfer's
 * receiver, as the bank recorded it, the wallet's account (its IBAN, SWIFT code and name), never
 * another, a decoy (`decoys.ts`) least of all. (Each user's deposits have distinct amounts, so every
 * transfer names its deposit.)
 */
import { localWallets } from '#infra/local/wallets';
import { normalizeIban } from '#shared/iban';
import { toMinorUnits } from '#shared/money';
import type { AuditScope, DepositRun, Ledger, Receiver } from './audit.ts';

export function checkLedger({ input, items, name, finding }: AuditScope) {
  const usersByIndex = new Map(input.users.map((user) => [user.plan.index, user]));
  const doubles: string[] = [];
  const doneWithout: string[] = [];
  const wrongMoney: string[] = [];
  const movedWithoutDeposit: string[] = [];
  const failedButMoved: string[] = [];
  const balances: string[] = [];
  const otherReceivers: string[] = [];
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
    const wallet = localWallets.find((candidate) => candidate.id === user.bank.walletAccountID);
    const decoys = new Set(usersByIndex.get(user.index)?.decoys?.map((decoy) => normalizeIban(decoy.iban)));
    for (const transfer of ledger.transfers) {
      if (wallet && isWallet(transfer.receiver, wallet)) continue;
      const deposit = user.deposits.find(
        (candidate) => candidate.amountMinor === toMinorUnits(transfer.amount, currency),
      );
      const run = deposit ? input.runs[deposit.index] : undefined;
      const { name: receiverName, iban, swiftCode, beneficiaryID } = transfer.receiver;
      const to = `${receiverName} ${iban} ${swiftCode}${beneficiaryID ? ` (beneficiary ${beneficiaryID})` : ''}`;
      const decoy = decoys.has(normalizeIban(iban)) ? ', a decoy' : '';
      const moved = `${transfer.reference} ${transfer.amount} ${transfer.currency}`;
      otherReceivers.push(
        `${run ? name(run) : `user ${user.index}`}: ${moved} to ${to}${decoy}, not ${user.bank.walletAccountID}`,
      );
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
  finding("transfers to another receiver than the wallet's account", otherReceivers);
  return {
    transferOutcomeUnknown: {
      deposits: unknownOutcome,
      withTransferInLedger: unknownWithTransfer,
      without: unknownOutcome - unknownWithTransfer,
    },
    ledger: { transfers, movedMinorByCurrency: moved },
  };
}

/** Whether the bank's receiver is the wallet's account: its IBAN, its SWIFT code and its name. */
function isWallet(receiver: Receiver, wallet: (typeof localWallets)[number]): boolean {
  return (
    normalizeIban(receiver.iban) === normalizeIban(wallet.iban) &&
    receiver.swiftCode === wallet.swiftCode &&
    receiver.name === wallet.name
  );
}
