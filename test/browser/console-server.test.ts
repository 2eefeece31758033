/**
 * `npm run console` (infra/console/server.ts), the real command, against a stand-in for a deployed
 * operator API: there is no local stand-in for API Gateway's IAM authorizer, so a small upstream
 * verifies each request's SigV4 signature with known static credentials (./sigv4-upstream.ts) and,
 * behind it, answers as the operator API would for an empty stage (the operator API itself, with
 * data, is console.test.ts's, over the local stack). The command prints the page's link with the
 * token it made at its start (`#token=...`); the page, in Chromium, sends it as `Authorization:
 * Bearer ...`: the server signs nothing without it, and it must never reach the upstream, where
 * every call must carry a signature of the operator's credentials. Finding the API by stage reads a
 * stand-in for CloudFormation's DescribeStacks (there is no local CloudFormation).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, launchChromium } from './chromium.ts';
import { startCloudFormationStandIn } from './cloudformation-stand-in.ts';
import { type Credentials, refusalOf, startSigV4Upstream } from './sigv4-upstream.ts';

const operator: Credentials = { accessKeyId: 'AKIAOPERATOREXAMPLE', secretAccessKey: 'operator/secret+key' };
const region = 'eu-west-1';

/** The operator API's answers for a stage without deposits. */
async function emptyStage(path: string) {
  const bodies: Record<string, unknown> = {
    '/v1/ops/deposits/list': { deposits: [], now: '2026-11-23T09:00:00.000Z' },
    '/v1/ops/deposits/stats': {
      now: '2026-11-23T09:00:00.000Z',
      counts: Object.fromEntries(
        ['initialized', 'user_input_required', 'outcome_unknown', 'failed', 'done'].map((bucket) => [
          bucket,
          { count: 0, capped: false },
        ]),
      ),
      overTime: {
        from: '2026-11-23T08:50:00.000Z',
        to: '2026-11-23T09:00:00.000Z',
        binSeconds: 25,
        bins: [],
      },
      timeToDone: { deposits: 0, steps: [] },
    },
    '/v1/ops/queues': {
      queues: [
        { name: 'transfer', visible: 0, inFlight: 0, delayed: 0, dlq: { name: 'transfer-dlq', visible: 2 } },
      ],
    },
  };
  const body = bodies[path];
  return body
    ? { status: 200, body: JSON.stringify(body) }
    : {
        status: 404,
        body: JSON.stringify({
          success: false,
          status: 'failed',
          type: 'DEPOSIT_NOT_FOUND',
          msg: 'No deposit',
        }),
      };
}

let browser: Browser;
let upstream: Awaited<ReturnType<typeof startSigV4Upstream>>;
/** The console of the operator, with the right credentials: its address, and the token its link carries. */
let consoleUrl: string;
let consoleToken: string;
const commands: ChildProcess[] = [];
/** The commands' HOME: empty, so that the default provider chain finds no ~/.aws. */
const home = mkdtempSync(join(tmpdir(), 'console-home-'));

/** `npm run console -- <args>` as the operator runs it, with these credentials. */
function startCommand(credentials: Credentials, args: string[], env: Record<string, string> = {}) {
  const command = spawn(process.execPath, ['--import', 'tsx', 'infra/console/server.ts', ...args], {
    cwd: join(import.meta.dirname, '../..'),
    // The default provider chain finds these first; an empty HOME keeps any ~/.aws out.
    env: {
      PATH: process.env.PATH,
      HOME: home,
      CONSOLE_PORT: '0',
      AWS_ACCESS_KEY_ID: credentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  commands.push(command);
  let output = '';
  const collect = (chunk: Buffer) => {
    output += chunk.toString('utf8');
  };
  command.stdout?.on('data', collect);
  command.stderr?.on('data', collect);
  const exited = new Promise<number | null>((ended) => command.once('exit', (code) => ended(code)));
  return { output: () => output, exited, command };
}

/** The link the command prints once it listens: the page's address and, in its fragment, the token. */
async function consoleOf(run: ReturnType<typeof startCommand>) {
  const link = await eventually(async () => {
    if (run.command.exitCode !== null) throw new Error(`npm run console ended: ${run.output()}`);
    return /Operator console: (http:\/\/\S+)/.exec(run.output())?.[1];
  }, 30_000);
  const [url = '', token = ''] = link.split('#token=');
  return { link, url, token };
}

/** `npm run console -- --url <upstream> -c region=...` with these credentials; the page's link. */
const runConsole = (credentials: Credentials) =>
  consoleOf(startCommand(credentials, ['--url', upstream.url, '-c', `region=${region}`]));

/** A call to the console's server as another process could make it (node:http: any Host header). */
function call(url: string, headers: Record<string, string>) {
  return new Promise<{ status: number; json: () => unknown }>((answered, failed) => {
    const sent = request(
      `${url}v1/ops/queues`,
      { method: 'POST', headers: { 'content-type': 'application/json', ...headers } },
      (answer) => {
        let text = '';
        answer.on('data', (chunk: Buffer) => {
          text += chunk.toString('utf8');
        });
        answer.on('end', () => answered({ status: answer.statusCode ?? 0, json: () => JSON.parse(text) }));
      },
    );
    sent.on('error', failed);
    sent.end('{}');
  });
}

beforeAll(async () => {
  browser = await launchChromium();
  upstream = await startSigV4Upstream({ credentials: operator, region, backend: emptyStage });
  ({ url: consoleUrl, token: consoleToken } = await runConsole(operator));
});

afterAll(async () => {
  for (const command of commands) command.kill();
  await browser?.close();
  await upstream?.close();
  rmSync(home, { recursive: true, force: true });
});

describe('npm run console', () => {
  it("finds the stage's operator API in the outputs of its stack, or says in one line that it is not there", async () => {
    // prepare
    const cloudFormation = await startCloudFormationStandIn({
      'BankPayments-dev-DepositsStateless': {
        DepositsApiUrl: 'https://deposits.example',
        OperatorApiUrl: `${upstream.url}/`,
      },
      'BankPayments-prod-DepositsStateless': { DepositsApiUrl: 'https://deposits.example' },
    });
    const env = { AWS_ENDPOINT_URL_CLOUDFORMATION: cloudFormation.url };

    // act
    const dev = startCommand(operator, ['-c', 'stage=dev', '-c', `region=${region}`], env);
    const devConsole = await consoleOf(dev);
    const answer = await fetch(`${devConsole.url}v1/ops/queues`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${devConsole.token}` },
      body: '{}',
    });
    const prod = startCommand(operator, ['-c', 'stage=prod', '-c', `region=${region}`], env);
    const prodExit = await prod.exited;
    await cloudFormation.close();

    // assess
    expect(dev.output()).toContain(`Operator API: ${upstream.url}/ (${region})`);
    expect(answer.status).toBe(200);
    expect(upstream.seen.at(-1)?.verified).toBe(true);
    expect(cloudFormation.asked).toEqual([
      'DescribeStacks BankPayments-dev-DepositsStateless',
      'DescribeStacks BankPayments-prod-DepositsStateless',
    ]);
    expect(prodExit).toBe(1);
    expect(prod.output().trim()).toBe(
      `BankPayments-prod-DepositsStateless (${region}) has no output OperatorApiUrl: deploy the stage with the operator API, or pass --url`,
    );
  });

  it("signs the page's calls with the operator's credentials, and the browser's Authorization never travels", async () => {
    // prepare
    const page = await browser.newPage();

    // act: the page, by the link the command printed
    await page.goto(`${consoleUrl}#token=${consoleToken}`);
    await expect.poll(() => page.getByTestId('queue-transfer').getAttribute('class')).toContain('dlq-alert');
    await expect.poll(() => page.getByTestId('list-empty').isVisible()).toBe(true);

    // assess
    const calls = upstream.seen.filter((seen) => seen.path.startsWith('/v1/ops/'));
    expect(calls.map((call) => call.path)).toEqual(
      expect.arrayContaining(['/v1/ops/deposits/list', '/v1/ops/deposits/stats', '/v1/ops/queues']),
    );
    for (const call of calls) {
      expect(call.verified, call.refusal).toBe(true);
      expect(call.headers.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIAOPERATOREXAMPLE\//);
      expect(JSON.stringify(call.headers)).not.toContain(consoleToken);
      expect(call.body).not.toContain(consoleToken);
    }
    await page.close();
  });

  it('is refused by the upstream when the signature does not match, and the page shows the refusal', async () => {
    // prepare: a signed call, to replay with another body; and an operator with the wrong secret
    const answer = await fetch(`${consoleUrl}v1/ops/queues`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${consoleToken}` },
      body: '{}',
    });
    expect(answer.status).toBe(200);
    const signed = upstream.seen.at(-1);
    if (!signed?.verified) throw new Error(`the call was not signed: ${signed?.refusal}`);
    const wrong = await runConsole({ ...operator, secretAccessKey: 'not-the-secret' });
    const page = await browser.newPage();

    // act
    const replayed = refusalOf({ ...signed, body: '{"status":"done"}' }, operator, region);
    await page.goto(wrong.link);

    // assess
    expect(replayed).toBe('the body is not the one signed');
    await expect.poll(() => page.getByTestId('error-type').textContent()).toBe('HTTP_403');
    expect(await page.getByTestId('error-msg').textContent()).toContain('signature does not match');
    await page.close();
  });

  it('signs nothing without the token its start printed, nor with another (401 in the failed envelope)', async () => {
    // prepare: a second console's token, which is not this one's
    const other = await runConsole(operator);
    const seenBefore = upstream.seen.length;

    // act
    const none = await call(consoleUrl, {});
    const wrong = await call(consoleUrl, { authorization: `Bearer ${other.token}` });
    const notBearer = await call(consoleUrl, { authorization: consoleToken });
    const page = await browser.newPage();
    await page.goto(consoleUrl);

    // assess
    expect(other.token).not.toBe(consoleToken);
    expect(other.token).toMatch(/^[\w-]{43}$/);
    expect([none.status, wrong.status, notBearer.status]).toEqual([401, 401, 401]);
    for (const refused of [none, wrong, notBearer]) {
      expect(refused.json()).toMatchObject({ success: false, status: 'failed', type: 'UNAUTHORIZED' });
    }
    // The page without the link's token: served, and it shows the refusal.
    await expect.poll(() => page.getByTestId('error-type').textContent()).toBe('UNAUTHORIZED');
    expect(upstream.seen.length).toBe(seenBefore);
    await page.close();
  });

  it('signs nothing for another origin, another host name, or a body that is not JSON', async () => {
    const seenBefore = upstream.seen.length;
    const bearer = { authorization: `Bearer ${consoleToken}` };

    const foreign = await call(consoleUrl, { ...bearer, origin: 'https://attacker.example' });
    const form = await call(consoleUrl, { ...bearer, 'content-type': 'text/plain' });
    const rebound = await call(consoleUrl, {
      ...bearer,
      host: `attacker.example:${new URL(consoleUrl).port}`,
    });

    expect([foreign.status, form.status, rebound.status]).toEqual([403, 415, 421]);
    expect(foreign.json()).toMatchObject({ success: false, status: 'failed', type: 'FOREIGN_ORIGIN' });
    expect(upstream.seen.length).toBe(seenBefore);
  });
});
