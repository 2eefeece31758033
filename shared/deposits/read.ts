/** The deposits API's get: the deposit as its owner sees it; to anyone else it does not exist. */

import type { Clock } from '#shared/clock';
import { matchesDigest } from '#shared/secrets';
import { DepositError } from './errors.ts';
import { depositView } from './model.ts';
import type { DepositRecords } from './ports.ts';

export interface ReadContext {
  deposits: Pick<DepositRecords, 'get'>;
  clock: Pick<Clock, 'now'>;
}

export async function readDeposit(
  request: { depositId: string; accessToken: string; userSecret: string },
  ctx: ReadContext,
) {
  const deposit = await ctx.deposits.get(request.depositId);
  // Both are compared, in constant time: a deposit is the connection's (token) and the user's (secret).
  const owner = matchesDigest(request.accessToken, deposit?.ownerKey);
  const reader = matchesDigest(request.userSecret, deposit?.readerKey);
  if (!deposit || !owner || !reader)
    throw new DepositError('DEPOSIT_NOT_FOUND', `No deposit ${request.depositId}`);
  return { status: 200, body: depositView(deposit, ctx.clock.now()) };
}
