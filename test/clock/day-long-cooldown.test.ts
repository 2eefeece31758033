/**
 * The bank whose beneficiary cool-down lasts a day (SANDBOX_COOLDOWN), end to end, in test time: a
 * stack of this file's own whose clock the test moves forward through `POST /_local/clock`, as a
 * developer can at `npm start`. The sandbox's banks and the deposit steps read that one clock and
 * the local scheduler fires the schedules it passes, so the day passes for the provider and the
 * orchestrator alike; nothing else about the stack changes (no step is skipped, no schedule fired by
 * hand).
 */
import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalStack } from '#infra/local/stack';
import { DepositsClient } from '#shared/deposits-api/client';
import { eventually } from '../support/eventually.ts';
import { appSecret, createUser, post, startStack, transfersOf, type User } from '../support/own-stack.ts';

let stack: LocalStack;

beforeAll(async () => {
  stack = await startStack();
});

afterAll(async () => {
  await stack?.stop();
});

type Entry = { step: string; status: string; note?: string };

/** Moves the stack's clock forward; its answer is the new time. */
async function advanceClock(seconds: number) {
  const moved = await post(`${stack.depositsUrl}/_local/clock`, { advanceSeconds: seconds });
  expect(moved.status).toBe(200);
  return Date.parse(moved.body.now);
}

async function clockNow() {
  const response = await fetch(`${stack.depositsUrl}/_local/clock`);
  return Date.parse(((await response.json()) as { now: string }).now);
}

/** The paths of the provider calls made for the user since last taken. */
async function takeProviderCalls(user: User): Promise<string[]> {
  const read = await post(`${stack.depositsUrl}/_local/provider-calls`, {
    accessToken: user.accessToken,
    clear: true,
  });
  return (read.body.calls as { path: string }[]).map((call) => call.path);
}

async function localSchedules() {
  const response = await fetch(`${stack.schedulerEndpoint}/_local/schedules`);
  return (await response.json()) as { schedules: { Name: string }[]; fired: { name: string }[] };
}

function apiOf(user: User) {
  const client = new DepositsClient({ baseUrl: stack.depositsUrl, retries: 0, timeoutMs: 30_000 });
  const connection = { accessToken: user.accessToken, userSecret: user.userSecret, appSecret };
  const ended = (status: string) => status !== 'initialized' && status !== 'cooling_down';
  return {
    createSource: async () => (await client.createSource(connection, {}, `source-${user.connectionID}`)).body,
    source: async (id: string) => (await client.getSource(connection, id)).body,
    deposit: async (amount: number) =>
      (await client.create(connection, { amount, senderID: user.accountId })).body.operationID,
    depositNow: async (id: string) => (await client.get(connection, id)).body,
    sourceWhen: (id: string, settled: (status: string) => boolean = ended) =>
      eventually(async () => {
        const source = (await client.getSource(connection, id)).body;
        return settled(source.status) ? source : undefined;
      }, 30_000),
    depositWhen: (id: string) =>
      eventually(async () => {
        const deposit = (await client.get(connection, id)).body;
        return deposit.status === 'done' || deposit.status === 'failed' ? deposit : undefined;
      }, 30_000),
  };
}

describe('a day-long cool-down, with the local clock moved forward', () => {
  it('SANDBOX_COOLDOWN: the source is ready a day later, the deposit that waited on it is done, and the next deposit makes one provider call', async () => {
    // prepare: a source cooling down for a day, and a deposit started meanwhile
    const user = await createUser(stack, 'SANDBOX_COOLDOWN', { asyncDelaySeconds: 0 });
    const api = apiOf(user);
    const { sourceID } = await api.createSource();
    const cooling = await api.sourceWhen(sourceID, (status) => status === 'cooling_down');
    const waitingId = await api.deposit(40);
    await eventually(async () => {
      const deposit = await api.depositNow(waitingId);
      const history = deposit.history as Entry[];
      return history.some((entry) => entry.note?.startsWith("waiting for the payment source's wake-up"))
        ? deposit
        : undefined;
    });
    const readyAt = Date.parse(String(cooling.readyAt));
    expect(readyAt - (await clockNow())).toBeGreaterThan(23.9 * 3_600_000);

    // act: the clock to a minute before the source's wake-up
    await advanceClock(Math.floor((readyAt - (await clockNow())) / 1000) - 60);
    const before = await localSchedules();
    const stillCooling = await api.source(sourceID);

    // assess: nothing has fired, nothing moved
    expect(before.fired).toEqual([]);
    expect(stillCooling.status).toBe('cooling_down');

    // act: past the wake-up
    await advanceClock(61);
    const ready = await api.sourceWhen(sourceID);
    const waited = await api.depositWhen(waitingId);

    // assess: ready through the day's cool-down; the deposit followed the source's one wake-up
    expect(ready.status).toBe('ready');
    expect((ready.history as Entry[]).some((entry) => entry.status === 'cooling_down')).toBe(true);
    expect(waited).toMatchObject({ status: 'done', reference: expect.any(String) });
    const after = await localSchedules();
    expect(after.fired.map((firing) => firing.name.startsWith(sourceID))).toEqual([true]);
    expect(after.schedules.filter((schedule) => schedule.Name.startsWith(waitingId))).toEqual([]);

    // act: a deposit afterwards
    await takeProviderCalls(user);
    const nextId = await api.deposit(41);
    const next = await api.depositWhen(nextId);
    const calls = await takeProviderCalls(user);

    // assess: its one provider call is the transfer; the bank holds the two transfers
    expect(next.status).toBe('done');
    expect(calls).toEqual(['/v1/payment/transfer/create']);
    expect(await transfersOf(stack, user)).toHaveLength(2);
  });

  it('the clock only moves forward, by a checked amount: anything else is refused and moves nothing', async () => {
    // prepare
    const before = await clockNow();

    // act
    const refused = await Promise.all(
      [{ advanceSeconds: -1 }, { advanceSeconds: 1.5 }, { advanceSeconds: '60' }, {}].map((body) =>
        post(`${stack.depositsUrl}/_local/clock`, body),
      ),
    );
    const after = await clockNow();

    // assess
    for (const answer of refused)
      expect(answer).toMatchObject({ status: 400, body: { type: 'BAD_REQUEST' } });
    expect(after - before).toBeLessThan(5_000);
  });
});

describe('npm run demo -- --source SANDBOX_COOLDOWN --skip-cooldown', () => {
  it('prepares the source through the day-long cool-down by moving the local clock, then a deposit goes straight to the transfer', async () => {
    // prepare
    const root = resolve(import.meta.dirname, '../..');
    const before = await clockNow();

    // act
    // As npm runs the script: tsx from node_modules/.bin.
    const { stdout } = await promisify(execFile)(
      resolve(root, 'node_modules/.bin/tsx'),
      ['infra/local/demo.ts', '--source', '--skip-cooldown', 'SANDBOX_COOLDOWN'],
      {
        cwd: root,
        env: { ...process.env, DEPOSITS_URL: stack.depositsUrl, SANDBOX_URL: stack.sandboxUrl },
        timeout: 60_000,
      },
    );

    // assess: a day's countdown, skipped by moving the clock a day, and the deposit without a wait
    expect(stdout).toMatch(/cool-down: 8\d{4} s left/);
    expect(stdout).toMatch(/--skip-cooldown: the local clock moved 8\d{4} s forward/);
    expect((await clockNow()) - before).toBeGreaterThan(23.9 * 3_600_000);
    const deposit = stdout.slice(stdout.indexOf('Ready: deposits into this wallet account'));
    expect(deposit).toContain('bank and beneficiary remembered');
    expect(deposit).not.toContain('wait-cooldown');
    expect(deposit).toMatch(/Done\. Transfer reference TRF\w+/);
  });
});
