/**
 * The deposits client's small pieces (`client.ts`): how a call by id takes its arguments, what a
 * create repeats, how a wait sleeps and tells one question from the next, and a body read leniently.
 */
import {
  type DepositOf,
  DepositsApiError,
  type DepositsConnection,
  DepositsUnavailable,
} from './client-types.ts';

export function isConnection(value: unknown): value is DepositsConnection {
  return typeof value === 'object' && value !== null && 'accessToken' in value;
}

/** The arguments of a call by id: `(id)` or `(connection, id)`. */
export function byId(
  first: DepositsConnection | string,
  second?: string,
): [DepositsConnection | undefined, string] {
  if (typeof first === 'string') return [undefined, first];
  if (second === undefined) throw new TypeError('an id is required after the connection');
  return [first, second];
}

/** A question as asked once: a question the bank asks again (a wrong password) expires at another time. */
export function questionKey(deposit: DepositOf<'user_input_required'>): string {
  return `${deposit.inputExpiresAt}|${deposit.userInputs.map((input) => input.id).join(',')}`;
}

/** Waits `ms`, or rejects with the signal's reason once it aborts. */
export function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', aborted);
      resolve();
    }, ms);
    const aborted = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', aborted, { once: true });
  });
}

/** A create whose outcome is unknown, or that was throttled, is sent again with its key. */
export function worthRepeating(error: unknown): boolean {
  if (error instanceof DepositsUnavailable) return error.reason !== 'unreadable';
  return error instanceof DepositsApiError && (error.httpStatus >= 500 || error.httpStatus === 429);
}

export function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
