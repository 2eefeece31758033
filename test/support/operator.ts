/** Test helpers for the operator API, over real HTTP against the running local stack. */
import { inject } from 'vitest';
import { expectDocumented } from './contract.ts';
import type { Reply } from './sandbox.ts';

export const operatorUrl = inject('operatorUrl');
export const operatorToken = inject('operatorToken');
/** A second operator (identity `local-operator-2`): approves what `local-operator` proposed. */
export const secondOperatorToken = inject('secondOperatorToken');

/** POST to the operator API with the operator token (or `token`, or none); the answer is checked against the document. */
export async function ops(
  path: string,
  body: unknown = {},
  token: string | null = operatorToken,
): Promise<Reply> {
  const response = await fetch(`${operatorUrl}${path}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(token === null ? {} : { authorization: `Bearer ${token}` }),
    },
    body: JSON.stringify(body),
  });
  const reply = { status: response.status, body: (await response.json()) as Reply['body'] };
  expectDocumented('operator', 'POST', path, reply.status, reply.body);
  return reply;
}

/** Every deposit of the list's pages (the filters the same on each page), `limit` a page. */
export async function listAll(filters: Record<string, unknown>, limit = 2): Promise<Reply['body'][]> {
  const all: Reply['body'][] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 500; page += 1) {
    const { status, body } = await ops('/v1/ops/deposits/list', {
      ...filters,
      limit,
      ...(cursor ? { cursor } : {}),
    });
    if (status !== 200) throw new Error(`list answered ${status}: ${JSON.stringify(body)}`);
    all.push(...(body.deposits as Reply['body'][]));
    cursor = body.cursor as string | undefined;
    if (!cursor) return all;
  }
  throw new Error('the list did not end');
}
