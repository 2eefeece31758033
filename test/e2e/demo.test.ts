/** `npm run demo`, run as a newcomer would, against the test stack, answering the OTP on stdin. */
import { execFile } from 'node:child_process';
import { createServer } from 'node:http';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { depositsUrl } from '../support/deposits.ts';
import { forward } from '../support/forward.ts';
import { sandboxUrl } from '../support/sandbox.ts';

const run = promisify(execFile);
const root = resolve(import.meta.dirname, '../..');

/**
 * `npm run demo`'s command as npm runs it: `tsx` from node_modules/.bin (npx would start npm's CLI
 * first, some 0.7 s of a core per run to find the same binary).
 */
function demo(args: string | string[], input: string, env: Record<string, string> = {}) {
  const child = run(resolve(root, 'node_modules/.bin/tsx'), ['infra/local/demo.ts', ...[args].flat()], {
    cwd: root,
    env: { ...process.env, DEPOSITS_URL: depositsUrl, SANDBOX_URL: sandboxUrl, ...env },
    timeout: 60_000,
  });
  child.child.stdin?.end(input);
  return child;
}

// The runs side by side, each a process with a user of its own: one after another they were the
// longest of the files that start processes, after the end-to-end files.
describe.concurrent('npm run demo', () => {
  it('walks an OTP deposit through every step, asking for the password', async () => {
    const { stdout } = await demo('SANDBOX_OTP', '123456\n123456\n');

    expect(stdout).toContain('The bank asks:');
    for (const step of ['resolve-bank', 'ensure-beneficiary', 'transfer', 'completed'])
      expect(stdout).toContain(step);
    expect(stdout).toMatch(/Done\. Transfer reference TRF\w+/);
    expect(stdout).toContain('now holds 99750 AED');
  });

  it('with --source: prepares a payment source, counting its cool-down down, then a deposit goes straight to the transfer', async () => {
    const { stdout } = await demo(['--source', 'SANDBOX_COOLDOWN_FAST'], '');

    expect(stdout).toContain('Preparing a payment source');
    expect(stdout).toMatch(/source src_\w+ accepted/);
    expect(stdout).toMatch(/cool-down: \d+ s left/);
    const deposit = stdout.slice(stdout.indexOf('Ready: deposits into this wallet account'));
    expect(deposit).toContain('bank and beneficiary remembered');
    expect(deposit).not.toContain('wait-cooldown');
    expect(deposit).not.toContain('cool-down:');
    expect(deposit).toMatch(/Done\. Transfer reference TRF\w+/);
  });

  it('counts down a cool-down', async () => {
    const { stdout } = await demo('SANDBOX_COOLDOWN_FAST', '');

    expect(stdout).toContain('wait-cooldown');
    expect(stdout).toMatch(/cool-down: \d+ s left/);
    expect(stdout).toContain('Done.');
  });

  it('finds the stack by PORT and SANDBOX_PORT, as npm start takes them, and says which it uses', async () => {
    // prepare: the test stack's ports, as a developer who started npm start on them would give them
    const ports = { PORT: new URL(depositsUrl).port, SANDBOX_PORT: new URL(sandboxUrl).port };

    // act
    const { stdout } = await demo('SANDBOX_BENEFICIARY', '', {
      DEPOSITS_URL: '',
      SANDBOX_URL: '',
      HOST: '',
      ...ports,
    });

    // assess
    expect(stdout.split('\n')[0]).toBe(
      `Using the local stack at ${depositsUrl} (deposits API, PORT) and ${sandboxUrl} (sandbox, SANDBOX_PORT).`,
    );
    expect(stdout).not.toContain('starting one');
    expect(stdout).toMatch(/Done\. Transfer reference TRF\w+/);
  });

  it('takes a stack whose first answer is slow (3 s, a loaded machine) for the stack, not for nothing', async () => {
    // prepare: the test stack's deposits API behind a proxy that holds the first request 3 s
    let first = true;
    const target = new URL(depositsUrl);
    const slow = createServer(async (request, response) => {
      if (first) {
        first = false;
        await new Promise((held) => setTimeout(held, 3_000));
      }
      forward(request, response, target);
    });
    await new Promise<void>((listening) => slow.listen(0, '127.0.0.1', listening));
    const address = slow.address();
    const port = typeof address === 'object' && address ? String(address.port) : '';
    try {
      // act
      const { stdout } = await demo('SANDBOX_BENEFICIARY', '', {
        DEPOSITS_URL: '',
        SANDBOX_URL: '',
        HOST: '',
        PORT: port,
        SANDBOX_PORT: new URL(sandboxUrl).port,
      });

      // assess
      expect(stdout.split('\n')[0]).toBe(
        `Using the local stack at http://127.0.0.1:${port} (deposits API, PORT) and ${sandboxUrl} (sandbox, SANDBOX_PORT).`,
      );
      expect(stdout).toMatch(/Done\. Transfer reference TRF\w+/);
    } finally {
      slow.closeAllConnections();
      await new Promise<void>((closed) => slow.close(() => closed()));
    }
  });

  it('refuses a port where something else answers, naming it, and starts no stack of its own', async () => {
    // prepare: another program on the deposits port, answering anything with 200
    const other = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end('{"status":"ok"}');
    });
    await new Promise<void>((listening) => other.listen(0, '127.0.0.1', listening));
    const address = other.address();
    const port = typeof address === 'object' && address ? String(address.port) : '';
    try {
      // act
      const failed = await demo('SANDBOX_BENEFICIARY', '', {
        DEPOSITS_URL: '',
        SANDBOX_URL: '',
        HOST: '',
        PORT: port,
        SANDBOX_PORT: new URL(sandboxUrl).port,
      }).then(
        () => undefined,
        (error: { code?: number; stdout?: string; stderr?: string }) => error,
      );

      // assess
      expect(failed?.code).toBe(2);
      expect(failed?.stderr).toContain(
        `http://127.0.0.1:${port} (PORT): something that is not the deposits API`,
      );
      expect(failed?.stderr).toContain(`${sandboxUrl} (SANDBOX_PORT): the sandbox`);
      expect(failed?.stderr).toContain('Set PORT and SANDBOX_PORT to the ports npm start printed');
      expect(failed?.stdout).not.toContain('starting one');
    } finally {
      await new Promise<void>((closed) => other.close(() => closed()));
    }
  });
});
