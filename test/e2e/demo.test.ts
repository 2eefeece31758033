/** `npm run demo`, run as a newcomer would, against the test stack, answering the OTP on stdin. */
import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { depositsUrl } from '../support/deposits.ts';
import { sandboxUrl } from '../support/sandbox.ts';

const run = promisify(execFile);
const root = resolve(import.meta.dirname, '../..');

function demo(bankId: string, input: string) {
  const child = run('npx', ['tsx', 'infra/local/demo.ts', bankId], {
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

  it('counts down a cool-down', async () => {
    const { stdout } = await demo('SANDBOX_COOLDOWN_FAST', '');

    expect(stdout).toContain('wait-cooldown');
    expect(stdout).toMatch(/cool-down: \d+ s left/);
    expect(stdout).toContain('Done.');
  });
});
