/**
 * How the chaos harness calls over HTTP, as any caller would: JSON in, JSON out (or what could not be
 * read of it), a minute at most, and the bearer header of a sandbox user's connection.
 */
import type { Connection } from './sandbox-client.ts';

export interface Reply {
  status: number;
  body: Record<string, any>;
}

export async function send(
  method: string,
  url: string,
  body?: unknown,
  headers: Record<string, string> = {},
) {
  const response = await fetch(url, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(60_000),
  });
  const text = await response.text();
  let parsed: Record<string, any> = {};
  try {
    parsed = text ? JSON.parse(text) : {};
  } catch {
    parsed = { unreadable: text.slice(0, 200) };
  }
  return { status: response.status, body: parsed } satisfies Reply;
}

/** The authorization header of a call on behalf of the connection's user. */
export const auth = (connection: Connection) => ({ authorization: `Bearer ${connection.accessToken}` });
