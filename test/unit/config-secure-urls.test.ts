/**
 * Where secrets travel: the provider's URL (the user's bank token goes there) and the webhook
 * receiver's (signed events go there) are https, or http to this machine only (the local stack).
 * Each reads the environment once per process: this file's module registry is its own.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { providerConfig, webhookConfig } from '#shared/config';

const saved = { ...process.env };
afterEach(() => {
  process.env = { ...saved };
});

describe('the URLs secrets travel to', () => {
  it.for([
    ['PROVIDER_BASE_URL', 'http://provider.example.com', () => providerConfig()],
    ['WEBHOOK_URL', 'http://hooks.wallet.example.com/deposits', () => webhookConfig()],
    ['PROVIDER_BASE_URL', 'http://10.0.0.7:3001', () => providerConfig()],
  ] as const)('refuses %s over http to another host (%s), naming the variable', ([name, url, read]) => {
    process.env[name] = url;
    expect(read).toThrow(new RegExp(`${name}: must be https://`));
  });

  it('takes https anywhere, and http to this machine (the local stack)', () => {
    process.env.PROVIDER_BASE_URL = 'http://127.0.0.1:3001';
    process.env.WEBHOOK_URL = 'https://hooks.wallet.example.com/deposits';
    expect(providerConfig().PROVIDER_BASE_URL).toBe('http://127.0.0.1:3001');
    expect(webhookConfig().WEBHOOK_URL).toBe('https://hooks.wallet.example.com/deposits');
  });
});
