/**
 * Who calls the local deposits API: the stand-in of its authorizer in AWS (IAM or JWT), so that a
 * deposit belongs to a backend here too (`shared/deposits/requests/caller.ts`). One developer's machine has
 * one backend, `local-backend`; a request may name another with `X-Local-Caller: <name>` (letters,
 * digits, `.`, `_`, `-`, at most 64), which is how the tests play a second backend that must see
 * nothing of the first's deposits. The gateway puts it on the event where only a gateway can put
 * anything (`requestContext.authorizer.lambda.localCaller`, as a Lambda authorizer's context would
 * be): a deployed API has no Lambda authorizer, so no request can name itself a backend there, and
 * `Authorization` stays free for the user's token, as the local stack has always taken it.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Refusal } from './refusals.ts';

export const LOCAL_CALLER_HEADER = 'x-local-caller';
export const DEFAULT_LOCAL_CALLER = 'local-backend';

/** The APIs whose callers are backends: the deposits API. */
const backendApis = new Set(['deposits']);

/** The authorizer the event carries for this request, none for another API, or the refusal of a bad name. */
export function localCallerOf(
  api: string,
  headers: IncomingHttpHeaders,
): { authorizer?: { lambda: { localCaller: string } } } | { refusal: Refusal } {
  if (!backendApis.has(api)) return {};
  const sent = headers[LOCAL_CALLER_HEADER];
  const name = Array.isArray(sent) ? sent.join(',') : (sent ?? DEFAULT_LOCAL_CALLER);
  if (!/^[A-Za-z0-9._-]{1,64}$/.test(name)) {
    return {
      refusal: {
        status: 400,
        type: 'BAD_REQUEST',
        msg: 'X-Local-Caller: 1 to 64 letters, digits, dots, underscores or dashes',
        details: ['X-Local-Caller header: 1 to 64 letters, digits, dots, underscores or dashes'],
      },
    };
  }
  return { authorizer: { lambda: { localCaller: name } } };
}
