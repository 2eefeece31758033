/**
 * The deposits API's reads: one deposit as its owner sees it (to anyone else it does not exist), and
 * the list of a connection's deposits, newest first, a page at a time.
 */

import type { Clock } from '#shared/clock';
import { digest, matchesDigest } from '#shared/secrets';
import { DepositError } from './errors.ts';
import { type Deposit, depositView } from './model.ts';
import type { DepositRecords, ListPosition, OwnerDeposits } from './ports.ts';

export interface ReadContext {
  deposits: Pick<DepositRecords, 'get'>;
  clock: Pick<Clock, 'now'>;
}

export async function readDeposit(
  request: { depositId: string; accessToken: string; userSecret: string },
  ctx: ReadContext,
) {
  const deposit = await ctx.deposits.get(request.depositId);
  if (!ownedBy(deposit, request))
    throw new DepositError('DEPOSIT_NOT_FOUND', `No deposit ${request.depositId}`);
  return { status: 200, body: depositView(deposit, ctx.clock.now()) };
}

/**
 * Whether the caller owns the deposit: both are compared, in constant time (and compared even when
 * there is no deposit), since a deposit is the connection's (token) and the user's (secret).
 */
export function ownedBy(
  deposit: Deposit | undefined,
  caller: { accessToken: string; userSecret: string },
): deposit is Deposit {
  const owner = matchesDigest(caller.accessToken, deposit?.ownerKey);
  const reader = matchesDigest(caller.userSecret, deposit?.readerKey);
  return deposit !== undefined && owner && reader;
}

export interface ListContext {
  owners: OwnerDeposits;
  clock: Pick<Clock, 'now'>;
}

/** The caller's connection's deposits, newest first; `cursor` continues where a page ended. */
export async function listDeposits(
  request: { accessToken: string; userSecret: string; limit: number; cursor?: string | undefined },
  ctx: ListContext,
) {
  const after = request.cursor === undefined ? undefined : positionOf(request.cursor);
  const page = await ctx.owners.page(digest(request.accessToken), request.limit, after);
  const now = ctx.clock.now();
  // The connection's deposits are the user's; a deposit another secret reads stays out (as in get).
  const deposits = page.deposits
    .filter((deposit) => matchesDigest(request.userSecret, deposit.readerKey))
    .map((deposit) => depositView(deposit, now));
  return { status: 200, body: { deposits, ...(page.last ? { cursor: cursorOf(page.last) } : {}) } };
}

/**
 * A cursor is the position of a page's last deposit, opaque to the caller. It names no connection:
 * the next page is always read within the caller's own, whatever cursor it sends.
 */
function cursorOf(position: ListPosition): string {
  return Buffer.from(JSON.stringify([position.depositId, position.createdAt])).toString('base64url');
}

function positionOf(cursor: string): ListPosition {
  try {
    const [depositId, createdAt] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (typeof depositId === 'string' && depositId.length <= 128 && Number.isSafeInteger(createdAt))
      return { depositId, createdAt };
  } catch {
    // not one of ours
  }
  throw new DepositError('INVALID_CURSOR', 'The cursor is not one a list answered', ['cursor']);
}
