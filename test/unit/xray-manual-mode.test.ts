/**
 * The local stack's processes load the X-Ray SDK in manual mode (`infra/local/xray-manual-mode.ts`):
 * no cls-hooked namespace, so no async hook on every promise. Each case is a fresh Node process, as
 * the SDK decides its mode once, as it loads; the unit project's own environment has the variable
 * set by vitest.config.ts, so the children are given an environment without it.
 */
import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
const { AWS_XRAY_MANUAL_MODE: _set, ...withoutVariable } = process.env;

/** Whether the X-Ray SDK's namespace (its async hook) exists after the process imports `modules`. */
function namespaceAfter(modules: string[]): boolean {
  const script = `${modules.map((m) => `await import(${JSON.stringify(m)});`).join('')}
    process.stdout.write(String(Boolean(process.namespaces?.AWSXRay)));`;
  const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: root,
    env: withoutVariable,
    encoding: 'utf8',
  });
  return out.trim() === 'true';
}

describe('the X-Ray SDK in the local stack', () => {
  it('is in automatic mode where nothing says otherwise, as in Lambda: its namespace and hook exist', () => {
    expect(namespaceAfter(['#shared/tracing'])).toBe(true);
  });

  it('is in manual mode once the local stack is loaded: no namespace, no hook on every promise', () => {
    expect(namespaceAfter(['#infra/local/stack', '#shared/tracing'])).toBe(false);
  });
});
