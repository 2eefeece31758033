/**
 * Who may see a deposit (or a payment source): the backend that created it, and within it whoever
 * names its connection.
 *
 * A deposit belongs to the wallet backend that created it: its identity as the deposits API's
 * authorizer verified it (an IAM principal, a JWT's subject and client; locally the gateway's
 * caller), kept as a keyed digest (`backendKey`, HMAC under the owner key, as the token's and the
 * user secret's). That backend reads, lists, cancels and answers its deposits by their id alone; any
 * other backend sees nothing of them (404). A request that also carries the connection's token (and
 * the user secret) sees only that connection's (and user's) deposits among them, as before.
 *
 * A deposit created without a backend identity (before deposits carried one, or by a caller no
 * authorizer named) has no `backendKey`: it is seen by its token and user secret together.
 *
 * Every key is compared in constant time, and compared even when there is no deposit.
 */
import type { Deposit } from '../model/deposit.ts';
import type { OwnerDigests } from '../ports/provider.ts';

/** Who calls: the backend's identity, and the connection's token and user secret when sent. */
export interface Caller {
  /** The backend's identity (`iam:<principal>`, `jwt:<sub>|<client>`, `local:<name>`), when known. */
  backend?: string | undefined;
  accessToken?: string | undefined;
  userSecret?: string | undefined;
}

/** The key a backend's identity is kept by: apart from the tokens' (its own prefix), under the same key. */
export function backendKeyOf(backend: string, digests: OwnerDigests): string {
  return digests.of(`backend ${backend}`);
}

/** Whether `stored` is the key of this backend (false for none, or no backend). */
function isBackend(backend: string | undefined, stored: string | undefined, digests: OwnerDigests) {
  return digests.matches(`backend ${backend ?? ''}`, stored) && backend !== undefined;
}

/**
 * Whether the caller may see the deposit: its backend's (or, without one, its token's and user
 * secret's), narrowed to the connection (and the user) the caller names.
 */
export function sees(
  deposit: Deposit | undefined,
  caller: Caller,
  digests: OwnerDigests,
): deposit is Deposit {
  const backend = isBackend(caller.backend, deposit?.backendKey, digests);
  const owner = digests.matches(caller.accessToken ?? '', deposit?.ownerKey);
  const reader = digests.matches(caller.userSecret ?? '', deposit?.readerKey);
  if (!deposit) return false;
  const namesConnection = caller.accessToken === undefined || owner;
  const namesUser = caller.userSecret === undefined || reader;
  if (deposit.backendKey !== undefined) return backend && namesConnection && namesUser;
  // Created without a backend identity: seen by its token and user secret together.
  return caller.accessToken !== undefined && caller.userSecret !== undefined && owner && reader;
}
