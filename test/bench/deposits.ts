/**
 * `npm run bench`: deposits through the whole local stack, measured. It prints figures; it asserts
 * nothing (a timed assertion would fail on a slow machine, not on slow code).
 *
 *   - accept latency: POST /v1/deposits/create until the 202
 *   - time to done:   create until the deposit reads `done` (every step, queue hop and provider call)
 *   - throughput:     deposits done per second with USERS connections in parallel
 *   - memory:         resident set and heap of the process running every handler, before and after
 */
import '#infra/local/xray-manual-mode';

import { writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { startLocalStack } from '#infra/local/stack';
import { DepositsClient } from '#shared/deposits-api/client';
import { installCounters } from './counting.ts';
import { zeroDelayHeadline } from './headline.ts';
import { keyModel, recordDeposits } from './key-model.ts';
import { runPerformance } from './performance.ts';

const quick = process.argv.includes('--quick') || process.env.BENCH_QUICK === '1';
const USERS = Number(process.env.BENCH_USERS ?? (quick ? 4 : 10));
const PER_USER = Number(process.env.BENCH_DEPOSITS_PER_USER ?? (quick ? 3 : 5));
const appSecret = 'sandbox-local-app-secret';

/** The sandbox's administration (the deposits API goes through its typed client). */
async function post(url: string, body: unknown) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return (await response.json()) as Record<string, any>;
}

function percentile(values: number[], p: number) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

// Before the stack starts: the counters wrap the provider client and hook every AWS SDK client.
installCounters();
const benchStarted = performance.now();
const stack = await startLocalStack({
  sandboxPort: 0,
  depositsPort: 0,
  operatorPort: 0,
  // Cool-downs past 2 s go through a schedule (the counted cool-down bank's is 3.6 s), as long ones do in AWS.
  env: { POWERTOOLS_LOG_LEVEL: 'ERROR', SANDBOX_APP_SECRET: appSecret, LONG_WAIT_SECONDS: '2' },
});
try {
  const before = process.memoryUsage();
  const users = await Promise.all(
    Array.from({ length: USERS }, async () => {
      const user = await post(`${stack.sandboxUrl}/sandbox/users`, {
        appSecret,
        bankId: 'SANDBOX_BENEFICIARY',
      });
      const { accessToken } = await post(`${stack.sandboxUrl}/v1/auth/ExchangeToken`, {
        appSecret,
        accessCode: user.accessCode,
        connectionID: user.connectionID,
      });
      return { accessToken, userSecret: user.userSecret as string, accountId: user.accounts[0].id as string };
    }),
  );

  const deposits = new DepositsClient({ baseUrl: stack.depositsUrl });
  const accept: number[] = [];
  const toDone: number[] = [];
  let failed = 0;

  /** One deposit, from create to done; returns its two latencies. */
  async function deposit(user: (typeof users)[number], amount: number, pollMs: number) {
    const connection = { accessToken: user.accessToken, appSecret, userSecret: user.userSecret };
    const t0 = performance.now();
    const { body: created } = await deposits.create(connection, { amount, senderID: user.accountId });
    const accepted = performance.now() - t0;
    for (;;) {
      const { body: state } = await deposits.get(connection, created.operationID);
      if (state.status === 'done' || state.status === 'failed') {
        if (state.status === 'failed') failed += 1;
        return { accepted, done: performance.now() - t0 };
      }
      await sleep(pollMs);
    }
  }

  // Unloaded: one deposit at a time (after one to warm the handlers up).
  const [first] = users;
  if (!first) throw new Error('no users');
  await deposit(first, 10, 20);
  const alone: { accepted: number; done: number }[] = [];
  for (let index = 0; index < 5; index += 1) alone.push(await deposit(first, 11 + index, 20));

  // Loaded: every user's deposits at once.
  const started = performance.now();
  await Promise.all(
    users.map((user) =>
      Promise.all(
        Array.from({ length: PER_USER }, async (_, index) => {
          const { accepted, done } = await deposit(user, 20 + index, 250);
          accept.push(accepted);
          toDone.push(done);
        }),
      ),
    ),
  );
  const seconds = (performance.now() - started) / 1000;
  const after = process.memoryUsage();
  const total = USERS * PER_USER;

  const row = (name: string, values: number[]) =>
    `${name.padEnd(16)} p50 ${percentile(values, 50).toFixed(0).padStart(6)} ms   p95 ${percentile(values, 95).toFixed(0).padStart(6)} ms   max ${Math.max(
      ...values,
    )
      .toFixed(0)
      .padStart(6)} ms`;
  process.stdout.write(
    [
      '',
      'One deposit at a time, SANDBOX_BENEFICIARY (5 runs after a warm-up)',
      row(
        'accept latency',
        alone.map((run) => run.accepted),
      ),
      row(
        'time to done',
        alone.map((run) => run.done),
      ),
      '',
      `${total} deposits at once (${USERS} users x ${PER_USER}; a user's deposits share one connection)`,
      row('accept latency', accept),
      row('time to done', toDone),
      `throughput       ${(total / seconds).toFixed(1)} deposits/s  (${seconds.toFixed(1)} s in all, ${failed} failed)`,
      `memory           rss ${mb(before.rss)} -> ${mb(after.rss)}   heap used ${mb(before.heapUsed)} -> ${mb(after.heapUsed)}`,
      '',
    ].join('\n'),
  );

  // The headline first: the orchestrator's own time, at a bank that carries operations out at once.
  const headline = await zeroDelayHeadline(stack, quick ? 3 : 15);
  const results = await runPerformance(stack, {
    runsPerBank: quick ? 2 : 15,
    scaleUsers: Number(process.env.BENCH_SCALE_USERS ?? (quick ? 30 : 200)),
    ceilingSeconds: quick ? 1 : 5,
    bundleImports: quick ? 0 : 3,
  });
  const { lines: _lines, ...figures } = results;
  // 1,000 deposits a second on paper: each partition's writes, from a deposit's real writes.
  const partitions = keyModel(await recordDeposits(), 1_000);
  process.stdout.write(
    [
      '',
      'Key model at 1,000 deposits/s, half of them first deposits (write units a second per partition; DynamoDB allows 1,000)',
      ...partitions.map(
        (load) =>
          `${load.where.padEnd(10)} ${load.partition.padEnd(52)} ${load.writeUnits.toFixed(0).padStart(5)} WU/s  ${(load.ofLimit * 100).toFixed(1).padStart(5)}%`,
      ),
      '',
    ].join('\n'),
  );
  const file = new URL(quick ? './last-run-quick.json' : './last-run.json', import.meta.url);
  writeFileSync(
    file,
    `${JSON.stringify(
      {
        date: new Date().toISOString(),
        mode: quick ? 'quick' : 'full',
        machine: {
          cpus: cpus().length,
          model: cpus()[0]?.model,
          loadAverage: loadavg(),
          node: process.version,
        },
        seconds: (performance.now() - benchStarted) / 1000,
        loaded: {
          deposits: total,
          users: USERS,
          perUser: PER_USER,
          depositsPerSecond: total / seconds,
          acceptP50: percentile(accept, 50),
          doneP50: percentile(toDone, 50),
          doneP95: percentile(toDone, 95),
          failed,
        },
        ...figures,
        headline,
        keyModel: { depositsPerSecond: 1_000, firstShare: 0.5, partitions },
      },
      null,
      2,
    )}\n`,
  );
  process.stdout.write(
    `\nResults in ${file.pathname} (${((performance.now() - benchStarted) / 1000).toFixed(0)} s in all)\n`,
  );
} finally {
  await stack.stop();
}
