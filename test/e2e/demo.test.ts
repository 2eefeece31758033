/** `npm run demo`, run as a newcomer would, against the test stack, answering the OTP on stdin. */
import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { depositsUrl } from '../support/deposits.ts';
import { sandboxUrl } from '../support/sandbox.ts';

const run = promisify(execFile);
const root = resolve(import.meta.dirname, '../..');

function demo(args: string | string[], input: string) {
  const child = run('npx', ['tsx', 'infra/local/demo.ts', ...[args].flat()], {
    cwd: root,
    env: { ...process.env, DEPOSITS_URL: depositsUrl, SANDBOX_URL: sandboxUrl },
    timeout: 60_000,
  });
  child.child.stdin?.end(input);
  return child;
}

describe('npm run demo', () => {
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
});
