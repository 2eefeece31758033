/**
 * The README is part of the product: its examples run here exactly as printed (only the sandbox URL
 * is swapped for the test stack's), wherever they live; the tables the code defines are checked
 * apart (`test/unit/doc-tables.test.ts`).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { depositsUrl } from '../support/deposits.ts';
import { sandboxUrl } from '../support/sandbox.ts';

const projectRoot = resolve(import.meta.dirname, '../..');
const readme = readFileSync(join(projectRoot, 'README.md'), 'utf8');
/** The README and the pages of `docs/`: the examples run wherever they live. */
const docs = [
  readme,
  ...readdirSync(join(projectRoot, 'docs'))
    .filter((file) => file.endsWith('.md'))
    .map((file) => readFileSync(join(projectRoot, 'docs', file), 'utf8')),
].join('\n');
const run = promisify(execFile);

function example(name: string, language = 'bash'): string {
  const match = new RegExp(`<!-- readme-example: ${name} -->\\n\`\`\`${language}\\n([\\s\\S]*?)\`\`\``).exec(
    docs,
  );
  if (!match?.[1]) throw new Error(`neither the README nor docs/ has an example named ${name}`);
  return match[1]
    .replaceAll('http://127.0.0.1:3001', sandboxUrl)
    .replaceAll('http://127.0.0.1:3000', depositsUrl);
}

async function runExample(name: string) {
  const { stdout } = await run('bash', ['-euo', 'pipefail', '-c', example(name)], { timeout: 30_000 });
  return stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
}

describe('README', () => {
  it('shows the two commands', () => {
    expect(readme).toContain('npm ci && npm start');
    expect(readme).toContain('npm test');
  });

  it('deposit example runs as printed', async () => {
    const [metadata, transfer, user] = await runExample('deposit');
    expect(metadata).toMatchObject({
      success: true,
      status: 'done',
      accountsMetadata: { bankName: expect.any(String) },
    });
    expect(transfer).toMatchObject({ success: true, status: 'done', reference: expect.any(String) });
    expect(user.accounts[0].balance).toBe(99_750);
    expect(user.transfers).toEqual([expect.objectContaining({ reference: transfer.reference, amount: 250 })]);
  });

  it('OTP example runs as printed', async () => {
    const [asked, answered] = await runExample('otp');
    expect(asked).toMatchObject({
      success: true,
      status: 'user_input_required',
      userInputs: [{ id: 'otp' }],
    });
    expect(answered).toMatchObject({ operationID: asked.operationID, success: true, status: 'done' });
    expect(answered.balance.currency).toEqual({ code: 'AED', name: 'UAE Dirham' });
  });

  it('orchestrated deposit example runs as printed', async () => {
    const [deposit] = await runExample('orchestrated-deposit');
    expect(deposit).toMatchObject({
      status: 'done',
      step: 'completed',
      amount: 125.5,
      reference: expect.any(String),
    });
  });

  it('typed deposits client example runs as printed, importing the package exports', async () => {
    // The example imports the package by its name: a file inside the package resolves it through
    // package.json `exports`, as a wallet backend's import of the installed package does.
    const directory = mkdtempSync(join(projectRoot, '.readme-example-'));
    const file = join(directory, 'deposit.ts');
    writeFileSync(file, example('deposits-client', 'ts'));
    try {
      const { stdout } = await run(join(projectRoot, 'node_modules/.bin/tsx'), [file], {
        timeout: 30_000,
        cwd: projectRoot,
      });
      const deposit = JSON.parse(stdout.trim());
      expect(deposit).toMatchObject({
        status: 'done',
        step: 'completed',
        amount: 125.5,
        currency: 'AED',
        reference: expect.any(String),
      });
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });
});
