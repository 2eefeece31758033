/**
 * The provider client's reading of `Retry-After` on a refusal: delay-seconds or an HTTP date (a
 * past one is no wait), anything else ignored; exposed as the refusal's `retryAfterMs`, through a
 * fetch that answers as the provider would.
 */
import { describe, expect, it } from 'vitest';
import { ProviderClient, ProviderRefusal, retryAfterMs } from '#shared/provider/client';

const now = Date.parse('2025-03-01T12:00:00Z');
const credentials = { accessToken: 'token', appSecret: 'app', userSecret: 'user' };

describe('retryAfterMs (a Retry-After header, read at `now`)', () => {
  it.each([
    ['30', 30_000],
    ['0', 0],
    [' 7 ', 7_000],
    ['Sat, 01 Mar 2025 12:00:45 GMT', 45_000],
    ['Saturday, 01-Mar-25 12:01:00 GMT', 60_000],
    ['Sat Mar  1 12:00:10 2025', 10_000],
    ['Sat, 01 Mar 2025 11:59:00 GMT', 0],
  ])('reads %j as %i ms', (value, expected) => {
    expect(retryAfterMs(value, now)).toBe(expected);
  });

  it.each([[null], [undefined], [''], ['soon'], ['-5'], ['1.5'], ['30s'], ['Someday, 99 Foo 2025']])(
    'reads %j as no wait named',
    (value) => {
      expect(retryAfterMs(value, now)).toBeUndefined();
    },
  );
});

/** A client whose every request is answered `status` with `body` and `headers`, its clock at `now`. */
function answering(status: number, body: unknown, headers: Record<string, string> = {}) {
  const fetch = async () =>
    new Response(JSON.stringify(body), {
      status,
      headers: { 'content-type': 'application/json', ...headers },
    });
  return new ProviderClient({ baseUrl: 'http://provider.test', timeoutMs: 1_000, fetch, now: () => now });
}

async function refusalOf(promise: Promise<unknown>): Promise<ProviderRefusal> {
  const outcome = await promise.then(
    () => undefined,
    (error: unknown) => error,
  );
  if (!(outcome instanceof ProviderRefusal)) throw new Error(`expected a refusal, got ${String(outcome)}`);
  return outcome;
}

const tooMany = { success: false, status: 'failed', type: 'TOO_MANY_REQUESTS', msg: 'Too many requests' };

describe('a refusal with Retry-After', () => {
  it('carries the wait in seconds as retryAfterMs, with the operation it names', async () => {
    const client = answering(429, { operationID: 'op-7', ...tooMany }, { 'retry-after': '30' });

    const refusal = await refusalOf(client.getOperation(credentials, { operationID: 'op-7' }));

    expect(refusal).toMatchObject({
      type: 'TOO_MANY_REQUESTS',
      httpStatus: 429,
      operationId: 'op-7',
      retryAfterMs: 30_000,
    });
  });

  it('carries the wait an HTTP date names, from the clock it was given', async () => {
    const client = answering(429, tooMany, { 'retry-after': 'Sat, 01 Mar 2025 12:02:00 GMT' });

    const refusal = await refusalOf(client.getMetadata(credentials));

    expect(refusal.retryAfterMs).toBe(120_000);
  });

  it('carries none without the header, or with one it cannot read', async () => {
    const without = await refusalOf(answering(429, tooMany).getMetadata(credentials));
    const unreadable = await refusalOf(
      answering(429, tooMany, { 'retry-after': 'later' }).getMetadata(credentials),
    );

    expect(without.retryAfterMs).toBeUndefined();
    expect(unreadable.retryAfterMs).toBeUndefined();
  });
});
