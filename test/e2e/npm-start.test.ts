/**
 * `npm start` (infra/local/start.ts) as a developer meets it: it says what it does while DynamoDB
 * Local starts; a port already in use ends it with one clear line naming the variable to set, and
 * leaves no DynamoDB Local process behind; a HOST beyond loopback is warned about.
 */
import { execFileSync, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { createServer, type Server } from 'node:net';
import { resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startDynamoDbLocal } from '#infra/local/dynamodb-local';

const projectRoot = resolve(import.meta.dirname, '../..');

/**
 * The ids of the DynamoDB Local (Java) processes running now; with `mark`, only those carrying it in
 * their environment (a child inherits it from the `npm start` under test), so that other tests
 * starting their own stacks meanwhile (the demo's) do not count. From /proc, else every one ps lists.
 */
function dynamoDbLocalPids(mark?: string): Set<number> {
  const pids = new Set<number>();
  if (existsSync('/proc')) {
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        const java = readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes('DynamoDBLocal.jar');
        if (java && (!mark || readFileSync(`/proc/${entry}/environ`, 'utf8').includes(mark)))
          pids.add(Number(entry));
      } catch {
        // The process ended while we looked, or is not ours to read.
      }
    }
    return pids;
  }
  const out = execFileSync('ps', ['-axo', 'pid=,command='], { encoding: 'utf8' });
  for (const line of out.split('\n')) {
    if (line.includes('DynamoDBLocal.jar')) pids.add(Number(line.trim().split(/\s+/)[0]));
  }
  return pids;
}

/** Runs `npm start`'s entry point with this environment until it exits. */
function npmStart(
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done, failed) => {
    const child = spawn(resolve(projectRoot, 'node_modules/.bin/tsx'), ['infra/local/start.ts'], {
      cwd: projectRoot,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 25_000);
    child.once('error', failed);
    child.once('exit', (code) => {
      clearTimeout(timer);
      done({ code, stdout, stderr });
    });
  });
}

let blocker: Server | undefined;
afterEach(async () => {
  await new Promise<void>((closed) => (blocker ? blocker.close(() => closed()) : closed()));
  blocker = undefined;
});

/** Takes a free port and keeps it, as another program would. */
async function busyPort(): Promise<number> {
  const server = createServer();
  blocker = server;
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  const address = server.address();
  if (typeof address !== 'object' || !address) throw new Error('no port');
  return address.port;
}

describe('npm start with a port already in use', () => {
  it.each([
    ['SANDBOX_PORT', 'sandbox'],
    ['PORT', 'deposits'],
    ['OPERATOR_PORT', 'operator'],
  ])('%s taken: one line naming %s, exit 1, no DynamoDB Local left running', async (variable, api) => {
    // prepare
    const port = await busyPort();
    const mark = `NPM_START_TEST_RUN=${randomUUID()}`;
    const before = dynamoDbLocalPids(mark);
    // The other ports: any free one, so that a stack running on the defaults does not matter.
    const others = Object.fromEntries(
      ['SANDBOX_PORT', 'PORT', 'OPERATOR_PORT']
        .filter((name) => name !== variable)
        .map((name) => [name, '0']),
    );

    // act
    const result = await npmStart({
      [variable]: String(port),
      ...others,
      NPM_START_TEST_RUN: mark.slice('NPM_START_TEST_RUN='.length),
    });
    const after = dynamoDbLocalPids(mark);

    // assess
    expect(result.code).toBe(1);
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`Port ${port} (the ${api} API) is already in use`);
    expect(lines[0]).toContain(`set ${variable} to a free port`);
    expect(result.stdout).not.toContain('local stack is up');
    expect([...after].filter((pid) => !before.has(pid))).toEqual([]);
  });
});

/**
 * `npm start` (its script, through tsx) on free ports with `env` over this process's: `up` is its
 * standard output once it is ready (45 s at most), `stderr()` what it has written there so far,
 * `waitFor` a match in its standard output as soon as it is printed.
 */
function startNpmStart(env: Record<string, string>) {
  const child = spawn(resolve(projectRoot, 'node_modules/.bin/tsx'), ['infra/local/start.ts'], {
    cwd: projectRoot,
    env: { ...process.env, PORT: '0', SANDBOX_PORT: '0', OPERATOR_PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  let text = '';
  const checks = new Set<() => void>();
  child.stdout.on('data', (chunk: Buffer) => {
    text += chunk.toString();
    for (const check of checks) check();
  });
  const waitFor = (pattern: RegExp, withinMs: number) =>
    new Promise<string>((done, failed) => {
      const check = () => {
        const match = pattern.exec(text)?.[0];
        if (match === undefined) return;
        checks.delete(check);
        clearTimeout(timer);
        done(match);
      };
      const timer = setTimeout(() => {
        checks.delete(check);
        failed(new Error(`npm start never printed ${pattern}:\n${text}${stderr}`));
      }, withinMs);
      checks.add(check);
      check();
    });
  return {
    up: waitFor(/[\s\S]*Press Ctrl-C to stop\./, 45_000),
    waitFor,
    stderr: () => stderr,
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

describe('npm start when the stack is up', () => {
  it("prints each API's contract and reference page, which answer, the operator's token and console link, and that no webhook is set", async () => {
    // prepare: the operator API's calls said (LOG_AUDIT), no webhook
    const started = startNpmStart({
      OPERATOR_TOKEN: '',
      HOST: '',
      WEBHOOK_URL: '',
      POWERTOOLS_LOG_LEVEL: 'INFO',
      LOG_AUDIT: '1',
    });
    try {
      // act
      const stdout = await started.up;
      const printed = [...stdout.matchAll(/http:\/\/127\.0\.0\.1:\d+\/(?:docs|openapi\.json)/g)].map(
        (m) => m[0],
      );
      const answers = await Promise.all(printed.map(async (url) => (await fetch(url)).status));

      // assess
      expect(printed.filter((url) => url.endsWith('/docs'))).toHaveLength(3);
      expect(printed.filter((url) => url.endsWith('/openapi.json'))).toHaveLength(3);
      expect(answers).toEqual([200, 200, 200, 200, 200, 200]);
      // The operator's console link carries the token, which the operator API takes.
      const link = /(http:\/\/127\.0\.0\.1:\d+)\/#token=(\S+)/.exec(stdout);
      expect(link).not.toBeNull();
      const [, operatorUrl, token] = link ?? [];
      expect(stdout).toContain(`Operator token     ${token}`);
      const queuesWith = async (bearer: string) =>
        (
          await fetch(`${operatorUrl}/v1/ops/queues`, {
            method: 'POST',
            headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
            body: '{}',
          })
        ).status;
      expect(await queuesWith(token ?? '')).toBe(200);
      expect(await queuesWith('not-the-token')).toBe(401);
      // Asked for, the operator API's calls are said: its request lines and its audit line.
      await started.waitFor(/INFO operator POST \/v1\/ops\/queues 200 \d+ ms requestId=/, 10_000);
      await started.waitFor(/INFO operator POST \/v1\/ops\/queues 401 \d+ ms requestId=/, 10_000);
      await started.waitFor(/INFO [^\n]*operator request [^\n]*path=\/v1\/ops\/queues status=200/, 10_000);
      // No webhook: said, with how to see the events.
      expect(stdout).toContain('Webhooks           none: WEBHOOK_URL is not set, so no events are sent');
      expect(stdout).toMatch(
        /npm run listen in another terminal, then WEBHOOK_URL=http:\/\/127\.0\.0\.1:3003 npm start/,
      );
      expect((await fetch(`${operatorUrl}/`)).status).toBe(200);
      // On loopback (the default) there is nothing to warn about, and Node warns of nothing either
      // (the queue pollers' receives, more than ten at once, wait on one signal that stops them all).
      expect(started.stderr()).not.toContain('HOST=');
      expect(started.stderr()).not.toMatch(/\(node:\d+\) \w*Warning/);
    } finally {
      await started.stop();
    }
  }, 60_000);
});

/** The status of a GET to `url` sent with this Host header. */
function statusWithHost(url: string, host: string): Promise<number> {
  return new Promise((done, failed) => {
    const call = httpRequest(url, { headers: { host } }, (answer) => {
      answer.resume();
      answer.on('end', () => done(answer.statusCode ?? 0));
    });
    call.on('error', failed);
    call.end();
  });
}

describe('npm start with HOST beyond loopback', () => {
  it('warns that the stack has test credentials and no real authentication, and still refuses a foreign Host', async () => {
    // prepare
    const started = startNpmStart({ HOST: '0.0.0.0' });
    try {
      // act
      const stdout = await started.up;
      // The URLs printed are the ones this machine calls (loopback), not 0.0.0.0.
      const depositsUrl = /Deposits API\s+(http:\/\/127\.0\.0\.1:\d+)/.exec(stdout)?.[1] ?? '';
      const port = new URL(depositsUrl).port;
      const own = await statusWithHost(`${depositsUrl}/_local/clock`, `127.0.0.1:${port}`);
      const foreign = await statusWithHost(`${depositsUrl}/_local/clock`, `evil.example:${port}`);

      // assess
      const stderr = started.stderr();
      expect(stderr).toContain('Warning: HOST=0.0.0.0 makes the local stack reachable from other machines');
      expect(stderr).toContain('test credentials');
      expect(stderr).toContain('no real authentication');
      expect(stdout).not.toContain('0.0.0.0');
      expect(own).toBe(200);
      expect(foreign).toBe(421);
    } finally {
      await started.stop();
    }
  }, 60_000);
});

describe('DynamoDB Local as npm start runs it', () => {
  it('says what it is doing while it starts, and leaves no process behind when stopped', async () => {
    // prepare
    const messages: string[] = [];
    const callersOptions = process.env.JDK_JAVA_OPTIONS;
    const callersTelemetry = process.env.DDB_LOCAL_TELEMETRY;

    // act
    const dynamodb = await startDynamoDbLocal((message) => messages.push(message));
    const running = dynamoDbLocalPids();
    const javaEnvironment = environOf(dynamodb.pid);
    await dynamodb.stop();
    const after = dynamoDbLocalPids();

    // assess
    expect(messages[0]).toMatch(/^Starting DynamoDB Local \(Java, in memory\) on port \d+\.\.\.$/);
    expect(messages.at(-1)).toMatch(/^DynamoDB Local is ready \(\d+\.\d s\)$/);
    expect(dynamodb.pid).toBeDefined();
    expect(running.has(dynamodb.pid ?? -1)).toBe(true);
    expect(after.has(dynamodb.pid ?? -1)).toBe(false);
    // Its JVM compiles with the first tier only (a short-lived process) and sends no telemetry, and
    // this one's environment is left as it was.
    expect(javaEnvironment.get('JDK_JAVA_OPTIONS')).toContain('-XX:TieredStopAtLevel=1');
    expect(javaEnvironment.get('DDB_LOCAL_TELEMETRY')).toBe(callersTelemetry ?? '0');
    expect(process.env.JDK_JAVA_OPTIONS).toBe(callersOptions);
    expect(process.env.DDB_LOCAL_TELEMETRY).toBe(callersTelemetry);
  });
});

/** A process's environment, by name (Linux's `/proc`). */
function environOf(pid: number | undefined): Map<string, string> {
  const text = readFileSync(`/proc/${pid}/environ`, 'utf8');
  return new Map(
    text
      .split('\0')
      .filter(Boolean)
      .map((entry) => [entry.slice(0, entry.indexOf('=')), entry.slice(entry.indexOf('=') + 1)]),
  );
}
