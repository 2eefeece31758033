/**
 * The deposits API's reads (and the sources API's): one deposit (source) as its owner sees it (to
 * anyone else it does not exist), and the list of a connection's deposits (sources), newest first, a
 * page at a time.
 */

import type { Clock } from '#shared/clock';
import { DepositError } from './errors.ts';
import { type Deposit, depositView, isSource } from './model.ts';
import type { DepositRecords, ListPosition, OwnerDeposits, OwnerDigests } from './ports.ts';
import { sourceView } from './sources.ts';

export interface ReadContext {
  deposits: Pick<DepositRecords, 'get'>;
  clock: Pick<Clock, 'now'>;
  ownerDigests: OwnerDigests;
}

export async function readDeposit(
  request: { depositId: string; accessToken: string; userSecret: string },
  ctx: ReadContext,
) {
  const deposit = await ctx.deposits.get(request.depositId);
  if (!ownedBy(deposit, request, ctx.ownerDigests) || isSource(deposit))
    throw new DepositError('DEPOSIT_NOT_FOUND', `No deposit ${request.depositId}`);
  return depositView(deposit, ctx.clock.now());
}

/** The sources API's read: one payment source as its owner sees it. */
export async function readSource(
  request: { sourceId: string; accessToken: string; userSecret: string },
  ctx: ReadContext,
) {
  const source = await ctx.deposits.get(request.sourceId);
  if (!ownedBy(source, request, ctx.ownerDigests) || !isSource(source))
    throw new DepositError('SOURCE_NOT_FOUND', `No source ${request.sourceId}`);
  return sourceView(source);
}

/**
 * Whether the caller owns the deposit: both keys are compared, in constant time (and compared even
 * when there is no deposit), since a deposit is the connection's (token) and the user's (secret).
 */
export function ownedBy(
  deposit: Deposit | undefined,
  caller: { accessToken: string; userSecret: string },
  digests: OwnerDigests,
): deposit is Deposit {
  const owner = digests.matches(caller.accessToken, deposit?.ownerKey);
  const reader = digests.matches(caller.userSecret, deposit?.readerKey);
  return deposit !== undefined && owner && reader;
}

export interface ListContext {
  owners: OwnerDeposits;
  clock: Pick<Clock, 'now'>;
  ownerDigests: OwnerDigests;
}

type ListRequest = { accessToken: string; userSecret: string; limit: number; cursor?: string | undefined };

/** The caller's connection's deposits, newest first; `cursor` continues where a page ended. */
export async function listDeposits(request: ListRequest, ctx: ListContext) {
  const now = ctx.clock.now();
  const { records, cursor } = await pageOf(request, ctx);
  const deposits = records.map((deposit) => depositView(deposit, now));
  return { deposits, ...(cursor ? { cursor } : {}) };
}

/** The caller's connection's payment sources, newest first, as `listDeposits`. */
export async function listSources(request: ListRequest, ctx: ListContext) {
  const { records, cursor } = await pageOf(request, ctx, 'source');
  return { sources: records.map(sourceView), ...(cursor ? { cursor } : {}) };
}

async function pageOf(request: ListRequest, ctx: ListContext, purpose?: 'source') {
  const after = request.cursor === undefined ? undefined : positionOf(request.cursor);
  const owner = ctx.ownerDigests.of(request.accessToken);
  const page = await ctx.owners.page(owner, request.limit, after, purpose);
  // The connection's records are the user's; one another secret reads stays out (as in get).
  const records = page.deposits.filter((deposit) =>
    ctx.ownerDigests.matches(request.userSecret, deposit.readerKey),
  );
  return { records, cursor: page.last && cursorOf(page.last) };
}

/**
 * A cursor is the position of a page's last deposit, opaque to the caller, and the list it belongs
 * to when the list names one (`scope`: the operator's status bucket). It names no connection: the
 * next page is always read within the caller's own, whatever cursor it sends.
 */
export function cursorOf(position: ListPosition, scope?: string): string {
  const parts = [...(scope === undefined ? [] : [scope]), position.depositId, position.createdAt];
  return Buffer.from(JSON.stringify(parts)).toString('base64url');
}

/** The position a cursor of this list (`scope`) names; INVALID_CURSOR for any other string. */
export function positionOf(cursor: string, scope?: string): ListPosition {
  try {
    const parts = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    const [named, depositId, createdAt] = scope === undefined ? [undefined, ...parts] : parts;
    if (
      Array.isArray(parts) &&
      named === scope &&
      typeof depositId === 'string' &&
      depositId.length > 0 &&
      depositId.length <= 128 &&
      Number.isSafeInteger(createdAt)
    )
      return { depositId, createdAt };
  } catch {
    // not one of ours
  }
  throw new DepositError('INVALID_CURSOR', 'The cursor is not one this list answered', ['cursor']);
}
