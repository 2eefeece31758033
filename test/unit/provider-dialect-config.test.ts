/**
 * PROVIDER_DIALECT: read with the provider's configuration, `spec` unless set, anything but `spec`
 * or `dapi-v2` refused naming the variable; and the client the steps are given speaks it. Each
 * reads the environment once per process: this file's module registry is its own.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { providerConfig } from '#shared/config';
import { providerClient } from '#shared/wiring/steps';

const saved = { ...process.env };
afterEach(() => {
  process.env = { ...saved };
  vi.unstubAllGlobals();
});

describe('PROVIDER_DIALECT', () => {
  it('refuses a dialect it does not speak, naming the variable', () => {
    process.env.PROVIDER_DIALECT = 'dapi-v3';
    expect(() => providerConfig()).toThrow(/PROVIDER_DIALECT/);
  });

  it("gives the steps a client that speaks it (here the provider's v2)", async () => {
    process.env.PROVIDER_DIALECT = 'dapi-v2';
    const paths: string[] = [];
    vi.stubGlobal('fetch', async (url: string) => {
      paths.push(new URL(url).pathname);
      return new Response(JSON.stringify({ operationID: 'op_1', success: true, status: 'done' }));
    });

    const client = providerClient();
    await client.getMetadata({ accessToken: 't', appSecret: 'a', userSecret: 'u' });

    expect(providerConfig().PROVIDER_DIALECT).toBe('dapi-v2');
    expect(paths).toEqual(['/v2/metadata/accounts/get']);
  });
});
