/**
 * What the local stack's gateways answer to (the Host header, against DNS rebinding) and when
 * `npm start` warns that HOST exposes it beyond this machine.
 */
import { describe, expect, it } from 'vitest';
import { exposureWarning, hostAllowed, reachableHost } from '#infra/local/host-guard';

describe('hostAllowed', () => {
  const loopback = { host: '127.0.0.1', port: 3000 };

  it.each(['127.0.0.1:3000', 'localhost:3000', 'LOCALHOST:3000', '[::1]:3000'])(
    'takes %s, a name of the loopback address on the port listened on',
    (header) => {
      expect(hostAllowed(header, loopback)).toBe(true);
    },
  );

  it.each([
    ['another name (a rebinding page)', 'evil.example:3000'],
    ['another name without a port', 'evil.example'],
    ['a loopback name on another port', '127.0.0.1:3001'],
    ['a loopback name without the port', 'localhost'],
    ['a name ending in localhost', 'evil.localhost.example:3000'],
    ['an empty header', ''],
    ['no header', undefined],
    ['a malformed header', '[::1:3000'],
    ['an IP literal of another machine', '192.168.1.20:3000'],
  ])('refuses %s', (_, header) => {
    expect(hostAllowed(header, loopback)).toBe(false);
  });

  it('takes the configured HOST when it is a name or an address', () => {
    expect(hostAllowed('devbox.lan:3000', { host: 'devbox.lan', port: 3000 })).toBe(true);
    expect(hostAllowed('192.168.1.20:3000', { host: '192.168.1.20', port: 3000 })).toBe(true);
    expect(hostAllowed('[fd00::20]:3000', { host: 'fd00::20', port: 3000 })).toBe(true);
    expect(hostAllowed('evil.example:3000', { host: 'devbox.lan', port: 3000 })).toBe(false);
  });

  it('on every interface (0.0.0.0, ::) takes any IP address, which no rebinding can send, but no other name', () => {
    for (const host of ['0.0.0.0', '::']) {
      expect(hostAllowed('192.168.1.20:3000', { host, port: 3000 })).toBe(true);
      expect(hostAllowed('[fd00::20]:3000', { host, port: 3000 })).toBe(true);
      expect(hostAllowed('localhost:3000', { host, port: 3000 })).toBe(true);
      expect(hostAllowed('evil.example:3000', { host, port: 3000 })).toBe(false);
      expect(hostAllowed('192.168.1.20:3001', { host, port: 3000 })).toBe(false);
    }
  });
});

describe('exposureWarning', () => {
  it.each(['127.0.0.1', '127.0.0.2', 'localhost', '::1', '[::1]'])(
    'says nothing for %s (loopback)',
    (host) => {
      expect(exposureWarning(host)).toBeUndefined();
    },
  );

  it.each(['0.0.0.0', '::', '192.168.1.20', 'devbox.lan'])(
    'warns for %s: test credentials, no real authentication',
    (host) => {
      const warning = exposureWarning(host);

      expect(warning).toContain(`HOST=${host}`);
      expect(warning).toContain('test credentials');
      expect(warning).toContain('no real authentication');
    },
  );
});

describe('reachableHost', () => {
  it('names an address this machine can call: loopback for every interface, brackets for IPv6', () => {
    expect(reachableHost('127.0.0.1')).toBe('127.0.0.1');
    expect(reachableHost('0.0.0.0')).toBe('127.0.0.1');
    expect(reachableHost('::')).toBe('[::1]');
    expect(reachableHost('::1')).toBe('[::1]');
    expect(reachableHost('localhost')).toBe('localhost');
  });
});
