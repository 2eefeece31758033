/**
 * The deposits API's reads (and the sources API's): one deposit (source) as the caller that may see
 * it sees it (`caller.ts`: its backend, narrowed to the connection and user it names; to anyone else
 * it does not exist), and the list of a backend's or a connection's deposits (sources), newest
 * first, a page at a time.
 */

import type { Clock } from '#shared/clock';
import { type DepositStatus, isSource } from '../model/deposit.ts';
import { DepositError } from '../model/errors.ts';
import { sourceView } from '../model/sources.ts';
import { depositView } from '../model/views.ts';
import type { OwnerDigests } from '../ports/provider.ts';
import type { BackendDeposits, DepositRecords, ListPosition, OwnerDeposits } from '../ports/records.ts';
import { backendKeyOf, type Caller, sees } from './caller.ts';

export interface ReadContext {
  deposits: Pick<DepositRecords, 'get'>;
  clock: Pick<Clock, 'now'>;
  ownerDigests: OwnerDigests;
}

export async function readDeposit(request: { depositId: string } & Caller, ctx: ReadContext) {
  const deposit = await ctx.deposits.get(request.depositId);
  if (!sees(deposit, request, ctx.ownerDigests) || isSource(deposit))
    throw new DepositError('DEPOSIT_NOT_FOUND', `No deposit ${request.depositId}`);
  return depositView(deposit, ctx.clock.now());
}

/** The sources API's read: one payment source as its owner sees it. */
export async function readSource(request: { sourceId: string } & Caller, ctx: ReadContext) {
  const source = await ctx.deposits.get(request.sourceId);
  if (!sees(source, request, ctx.ownerDigests) || !isSource(source))
    throw new DepositError('SOURCE_NOT_FOUND', `No source ${request.sourceId}`);
  return sourceView(source);
}

export interface ListContext {
  /** A connection's deposits: the list of a caller that names one (its token). */
  owners: OwnerDeposits;
  /** A backend's deposits: the list of a caller that names no connection. */
  backends: BackendDeposits;
  clock: Pick<Clock, 'now'>;
  ownerDigests: OwnerDigests;
}

type ListRequest = Caller & {
  limit: number;
  cursor?: string | undefined;
  /** Only the deposits of this status (deposits only). */
  status?: DepositStatus | undefined;
};

/**
 * The caller's deposits, newest first: the connection's when it names one (its token), else its
 * backend's, whatever their connection; `cursor` continues where a page ended.
 */
export async function listDeposits(request: ListRequest, ctx: ListContext) {
  const now = ctx.clock.now();
  const { records, cursor } = await pageOf(request, ctx);
  const deposits = records.map((deposit) => depositView(deposit, now));
  return { deposits, ...(cursor ? { cursor } : {}) };
}

/** The caller's payment sources, newest first, as `listDeposits`. */
export async function listSources(request: Omit<ListRequest, 'status'>, ctx: ListContext) {
  const { records, cursor } = await pageOf(request, ctx, 'source');
  return { sources: records.map(sourceView), ...(cursor ? { cursor } : {}) };
}

async function pageOf(request: ListRequest, ctx: ListContext, purpose?: 'source') {
  const after = request.cursor === undefined ? undefined : positionOf(request.cursor);
  const page = request.accessToken
    ? await ctx.owners.page(ctx.ownerDigests.of(request.accessToken), request.limit, after, purpose)
    : request.backend
      ? await ctx.backends.page(backendKeyOf(request.backend, ctx.ownerDigests), request.limit, after, {
          purpose,
          status: request.status,
        })
      : { deposits: [], last: undefined };
  // What the caller may see of the page (another backend's deposits on the connection, another
  // user's on the token stay out, as in get), of the status it asked for.
  const records = page.deposits.filter(
    (deposit) =>
      sees(deposit, request, ctx.ownerDigests) &&
      (request.status === undefined || deposit.status === request.status),
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
