/**
 * `npm start` says what it does, and `npm run listen` shows its webhooks, as a developer meets them:
 * both scripts run as processes of their own (through tsx, as npm runs them), `npm start` pointed at
 * the listener. A deposit made through the API is heard at the listener, verified; the stack's
 * output has a line for each API request (route, status, time, the request id the caller got) and
 * one for each step the deposit took; the operator API's calls (the console's, every 2 s) are not
 * said unless asked for (`LOG_AUDIT=1`, npm-start.test.ts).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const projectRoot = resolve(import.meta.dirname, '../..');

/** A script of package.json run as npm runs it, its standard output kept as it comes. */
function runScript(entry: string, env: Record<string, string>) {
  const child: ChildProcess = spawn(resolve(projectRoot, 'node_modules/.bin/tsx'), [entry], {
    cwd: projectRoot,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  let stdout = '';
  let stderr = '';
  const waiting = new Set<() => void>();
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    for (const check of waiting) check();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return {
    stdout: () => stdout,
    /** The first match of `pattern` in the output, as soon as it is there (`withinMs` at most). */
    waitFor(pattern: RegExp, withinMs: number): Promise<RegExpExecArray> {
      return new Promise((found, failed) => {
        const check = () => {
          const match = pattern.exec(stdout);
          if (!match) return;
          waiting.delete(check);
          clearTimeout(timer);
          found(match);
        };
        const timer = setTimeout(() => {
          waiting.delete(check);
          failed(new Error(`${entry} never printed ${pattern}:\n${stdout}\n${stderr}`));
        }, withinMs);
        waiting.add(check);
        check();
      });
    },
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

async function post(url: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  // biome-ignore lint/suspicious/noExplicitAny: JSON answers, whose fields the test reads one by one
  return { status: response.status, body: (await response.json()) as Record<string, any> };
}

const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('npm start with npm run listen', () => {
  it('a deposit is heard at the listener, verified; the stack says each request and each step, not the operator calls', async () => {
    // prepare: the listener on a free port with the local secret, then the stack pointed at it
    const listen = runScript('infra/local/listen.ts', { LISTEN_PORT: '0', WEBHOOK_SECRET: '' });
    let stack: ReturnType<typeof runScript> | undefined;
    try {
      const [, listenUrl = ''] = await listen.waitFor(/Listening on\s+(http:\/\/127\.0\.0\.1:\d+)/, 30_000);
      stack = runScript('infra/local/start.ts', {
        PORT: '0',
        SANDBOX_PORT: '0',
        OPERATOR_PORT: '0',
        HOST: '',
        OPERATOR_TOKEN: '',
        WEBHOOK_URL: listenUrl,
        WEBHOOK_SECRET: '',
        POWERTOOLS_LOG_LEVEL: 'INFO',
        LOG_AUDIT: '',
      });
      const banner = (await stack.waitFor(/[\s\S]*Press Ctrl-C to stop\./, 60_000))[0];
      const url = (name: string) =>
        new RegExp(`${name}\\s+(http://127\\.0\\.0\\.1:\\d+)`).exec(banner)?.[1] ?? '';
      const [depositsUrl, sandboxUrl, operatorUrl] = [
        url('Deposits API'),
        url('Provider sandbox'),
        url('Operator API'),
      ];
      const token = /Operator token\s+(\S+)/.exec(banner)?.[1] ?? '';
      const appSecret = 'sandbox-local-app-secret';

      // act: the console's kind of call first, then a user, a refused read and a deposit
      const queues = await post(`${operatorUrl}/v1/ops/queues`, {}, { authorization: `Bearer ${token}` });
      const user = await post(`${sandboxUrl}/sandbox/users`, { appSecret, bankId: 'SANDBOX_BENEFICIARY' });
      const { accessCode, connectionID, userSecret, accounts } = user.body;
      const exchanged = await post(`${sandboxUrl}/v1/auth/ExchangeToken`, {
        appSecret,
        accessCode,
        connectionID,
      });
      const bearer = { authorization: `Bearer ${exchanged.body.accessToken}` };
      const unknown = await post(
        `${depositsUrl}/v1/deposits/get`,
        { appSecret, userSecret, operationID: 'dep_01M812W7SXHYZAEH7814YWVTV8' },
        bearer,
      );
      const created = await post(
        `${depositsUrl}/v1/deposits/create`,
        { appSecret, userSecret, amount: 125.5, senderID: accounts[0].id },
        { ...bearer, 'idempotency-key': crypto.randomUUID() },
      );
      const id = String(created.body.operationID);
      const heard = await listen.waitFor(
        new RegExp(`deposit\\.done\\s+${id}\\s+verified[^\\n]*\\n {4}[^\\n]*\\n`),
        90_000,
      );
      await stack.waitFor(new RegExp(`deposit ${id} \\S+ → completed done`), 30_000);
      const unsigned = await fetch(listenUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'webhook-id': 'evt_forged' },
        body: JSON.stringify({ type: 'deposit.done', data: { depositId: id } }),
      });
      await listen.waitFor(/REFUSED evt_forged/, 10_000);

      // assess: where events go, said at the start
      expect(queues.status).toBe(200);
      expect(banner).toContain(`Webhooks           deposit events go to ${listenUrl} (WEBHOOK_URL)`);
      // the event, verified with the local secret both ends took, and what it carries
      expect(created.status).toBe(202);
      expect(heard[0]).toContain(`webhook-id ${id}.v`);
      expect(heard[0]).toMatch(/status done {2}step completed/);
      expect(heard[0]).toMatch(/reference TRF\w+/);
      expect(unsigned.status).toBe(401);
      // one line per request: route, status, time taken, the request id the caller was given
      const output = stack.stdout();
      expect(output).toMatch(/INFO deposits POST \/v1\/deposits\/create 202 \d+ ms requestId=[0-9a-f-]{36}/);
      expect(unknown.status).toBe(404);
      expect(output).toMatch(
        new RegExp(
          `INFO deposits POST /v1/deposits/get 404 \\d+ ms requestId=${literal(unknown.body.requestId)}`,
        ),
      );
      expect(output).toMatch(/INFO sandbox POST \/sandbox\/users 201 \d+ ms requestId=/);
      // one line per step the deposit took, in order, from its start to done
      const steps = [...output.matchAll(new RegExp(`deposit ${id} (\\S+) → (\\S+) (\\S+)`, 'g'))].map(
        ([, from, to, status]) => `${from} → ${to} ${status}`,
      );
      expect(steps[0]).toBe('new → resolve-bank initialized');
      expect(steps[1]).toBe('resolve-bank → ensure-beneficiary initialized');
      expect(steps).toContain('ensure-beneficiary → transfer initialized');
      expect(steps.at(-1)).toMatch(/ → completed done$/);
      expect(new Set(steps).size).toBe(steps.length);
      // the operator call, made before all these, was not said
      const afterBanner = output.slice(banner.length);
      expect(afterBanner).not.toContain('/v1/ops/queues');
      expect(afterBanner).not.toContain('operator request');
    } finally {
      await stack?.stop();
      await listen.stop();
    }
  }, 180_000);
});
