/**
 * Which beneficiary of a bank's list is the wallet account, only when that is unambiguous: never by
 * name, never by a masked fragment alone.
 *   1. by its full identifiers: the list's `accountNumber` is the wallet's account number or IBAN
 *      (one id so listed; two different ids are ambiguous);
 *   2. at a bank that masks them (`****3456`), by the id the bank gave to our own creation: the one
 *      new entry of a list taken right after it, compared with the list taken right before it, whose
 *      visible end fits the wallet's; any other masked entry that fits is ambiguous (it may be the
 *      wallet's, or another account ending the same way).
 */
import type { WalletAccount } from '../model/deposit.ts';
import { accountKey, isWalletAccount } from '../model/wallets.ts';

export interface ListedEntry {
  id: string;
  accountNumber: string;
  status: string;
}

/** What a list says of the wallet's beneficiary: found, ambiguous, or absent (undefined). */
export type WalletMatch = { kind: 'listed'; id: string; approved: boolean } | { kind: 'ambiguous' };

/** An account identifier shown masked: mask characters, then (at most) a visible end. */
const masked = /^[*•●#xX]{2,}[\s-]*([0-9A-Za-z]*)$/;

/** Whether `entry` shows a masked identifier whose visible end could be the wallet's. */
export function fitsMasked(wallet: WalletAccount, entry: { accountNumber: string }): boolean {
  const visible = masked.exec(entry.accountNumber.trim())?.[1];
  if (!visible) return false;
  const end = accountKey(visible);
  const { accountNumber, iban } = wallet.beneficiary;
  return [accountNumber, iban].some((identifier) => {
    const key = accountKey(identifier);
    return key.length > end.length && key.endsWith(end);
  });
}

/**
 * The wallet's beneficiary in `entries`; `before` (the ids listed just before our own creation)
 * lets the one new masked entry be taken as the one the bank created for us.
 */
export function matchWallet(
  entries: readonly ListedEntry[] | undefined,
  wallet: WalletAccount,
  before?: readonly string[],
): WalletMatch | undefined {
  const list = entries ?? [];
  const exact = new Map(
    list.filter((entry) => isWalletAccount(wallet, entry)).map((entry) => [entry.id, entry]),
  );
  if (exact.size > 1) return { kind: 'ambiguous' };
  const [found] = exact.values();
  if (found) return listed(found);
  const fitting = list.filter((entry) => fitsMasked(wallet, entry));
  if (fitting.length === 0) return undefined;
  const fresh = before ? fitting.filter((entry) => !before.includes(entry.id)) : [];
  const [ours] = fresh;
  if (fresh.length === 1 && ours) return listed(ours);
  return { kind: 'ambiguous' };
}

function listed(entry: ListedEntry): WalletMatch {
  return { kind: 'listed', id: entry.id, approved: entry.status === 'approved' };
}
