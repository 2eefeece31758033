/**
 * Deposits under faults, end to end on the local stack: steps that die at each crash point, lost,
 * duplicated and re-ordered step messages, a scheduler that fires early and twice, and a provider
 * that times out or answers 5xx. The invariants: never two transfers for one deposit, never a
 * stranded deposit (it always ends done or failed), one beneficiary per connection and wallet.
 *
 * Fault seams used (and only these): crash points armed per user (POST /_local/crash), the local
 * scheduler's /_local fire, sandbox per-user fault rules (POST /sandbox/faults), and raw messages
 * sent to the step queues.
 */
import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, describe, type ExpectStatic, inject, it } from 'vitest';
import {
  armCrash,
  deathsOf,
  depositWhen,
  fireSchedule,
  localSchedules,
  providerPath,
  readDeposit,
  startDeposit,
  stepsOf,
  transferSteps,
} from '../support/deposits.ts';
import { ops } from '../support/operator.ts';
import { createUser, eventually, type Reply, setFaults, type TestUser } from '../support/sandbox.ts';

type Step = 'resolve-bank' | 'ensure-beneficiary' | 'wait-cooldown' | 'transfer';
type CrashPoint = 'before-provider-call' | 'after-provider-call' | 'before-state-write' | 'after-state-write';
interface HistoryEntry {
  step: string;
  status: string;
  at: string;
  note?: string;
}

const TRANSFER = providerPath('transferCreate');
const METADATA = providerPath('metadata');
const steps: Step[] = ['resolve-bank', 'ensure-beneficiary', 'wait-cooldown', 'transfer'];
/** STALL_AFTER_SECONDS (3 s) of the test stack, less a margin. */
const STALL_MS = 2_900;

const sqs = new SQSClient({
  endpoint: inject('sqsEndpoint'),
  region: 'us-east-1',
  credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
});
afterAll(() => sqs.destroy());

const queueUrls = inject('queueUrls');
function queueUrl(step: Step): string {
  const key = {
    'resolve-bank': 'resolveBank',
    'ensure-beneficiary': 'ensureBeneficiary',
    'wait-cooldown': 'waitCooldown',
    transfer: 'transfer',
  }[step];
  const url = queueUrls[key]?.url;
  if (!url) throw new Error(`no queue ${key}`);
  return url;
}

/** Sends raw step messages (a fault: duplicates, late or re-ordered ones) straight to a step queue. */
async function sendRaw(url: string, messages: { depositId: string; step: Step; version: number }[]) {
  for (let start = 0; start < messages.length; start += 10) {
    const batch = messages.slice(start, start + 10);
    const sent = await sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: url,
        Entries: batch.map((message, index) => ({
          Id: String(index),
          MessageBody: JSON.stringify({ ...message, kind: 'run' }),
        })),
      }),
    );
    if (sent.Failed?.length) throw new Error(`raw messages not sent: ${JSON.stringify(sent.Failed)}`);
  }
}

async function sandboxState(user: TestUser) {
  const state = await user.state();
  return {
    /** In minor units (fils), so that sums compare exactly. */
    balanceMinor: Math.round((state.accounts[0].balance as number) * 100),
    transfers: state.transfers as { reference: string; amount: number; createdAt: string }[],
  };
}

/**
 * The user's beneficiaries, as the bank lists them. A call of the deposit's that the bank still holds
 * (a copy of a crashed step's, whose answer nobody waits for any more) keeps the connection busy a
 * moment after the deposit is done: the bank says so (409 OPERATION_IN_PROGRESS), and is asked again.
 */
async function beneficiaries(user: TestUser): Promise<unknown[]> {
  const reply = await eventually(async () => {
    const listed = await user.call('/v1/payment/beneficiaries/get', { sync: true });
    return listed.status === 409 && listed.body.type === 'OPERATION_IN_PROGRESS' ? undefined : listed;
  }, 10_000);
  if (reply.status !== 200 || !Array.isArray(reply.body.beneficiaries)) {
    throw new Error(`beneficiaries not listed: ${reply.status} ${JSON.stringify(reply.body)}`);
  }
  return reply.body.beneficiaries;
}

/**
 * The step died right after a write of the deposit, before sending the message that write called
 * for: the deposit then sat still until the sweeper found it, STALL_AFTER_SECONDS after that write.
 * The write it died after is the last history entry written before the death: the move on, or, on a
 * machine slow enough for a provider call to time out, the retry the step wrote first (its note
 * names it). Either way nothing moved the deposit for the stall time, and it was the one death.
 */
async function expectStillUntilSwept(expect: ExpectStatic, deposit: Reply['body'], step: string) {
  const deaths = await deathsOf(deposit.operationID);
  expect(deaths.map((death) => [death.step, death.point])).toEqual([[step, 'after-state-write']]);
  const history = deposit.history as HistoryEntry[];
  const diedAt = deaths[0]?.at ?? 0;
  const written = history.findLastIndex((entry) => Date.parse(entry.at) <= diedAt);
  const after = history[written + 1];
  if (written < 0 || !after) throw new Error(`no write before the death in ${JSON.stringify(history)}`);
  expect(
    Date.parse(after.at) - Date.parse(history[written]?.at ?? ''),
    JSON.stringify(history),
  ).toBeGreaterThanOrEqual(STALL_MS);
}

/**
 * The crash fired in this deposit's `step` at `point` (the local stack recorded the death), once,
 * and the deposit left that step only after it: the step ran again when its message came back.
 */
async function expectRanAgainAfterDeath(
  expect: ExpectStatic,
  deposit: Reply['body'],
  step: string,
  point: string,
) {
  const deaths = await deathsOf(deposit.operationID);
  expect(deaths.map((death) => [death.step, death.point])).toEqual([[step, point]]);
  const history = deposit.history as HistoryEntry[];
  const entered = history.findIndex((entry) => entry.step === step);
  const left = history.slice(entered + 1).find((entry) => entry.step !== step);
  expect(Date.parse(left?.at ?? '')).toBeGreaterThan(deaths[0]?.at ?? Number.POSITIVE_INFINITY);
}

/** Reads the deposit repeatedly for `ms` and fails as soon as `check` throws: a state that must hold. */
async function holdsFor(ms: number, check: () => Promise<void>) {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    await check();
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

const cents = (amount: number) => Math.round(amount * 100);

const settled = (user: TestUser, id: string, timeoutMs = 25_000) =>
  depositWhen(user, id, undefined, timeoutMs);

describe.concurrent('a step that crashes', () => {
  const recovering: [Step, CrashPoint][] = (['resolve-bank', 'ensure-beneficiary'] as const).flatMap((step) =>
    (['before-provider-call', 'after-provider-call', 'before-state-write', 'after-state-write'] as const).map(
      (point): [Step, CrashPoint] => [step, point],
    ),
  );

  it.for(recovering)(
    '%s crashing %s: done, one transfer, one beneficiary',
    async ([step, point], { expect }) => {
      // prepare
      const user = await createUser('SANDBOX_BENEFICIARY');
      // fault: the step dies once at this crash point
      await armCrash(user, point, { step });

      // act
      const started = await startDeposit(user, { amount: 25.5 });
      const done = await settled(user, started.body.operationID);
      const bank = await sandboxState(user);

      // assess
      expect(started.status).toBe(202);
      expect(done.type).toBeUndefined();
      expect(done).toMatchObject({ status: 'done', step: 'completed', reference: expect.any(String) });
      expect(bank.transfers.map((transfer) => transfer.reference)).toEqual([done.reference]);
      expect(bank.balanceMinor).toBe(cents(user.balance) - cents(25.5));
      expect(await beneficiaries(user)).toHaveLength(1);
      expect(stepsOf(done)).toEqual(['resolve-bank', 'ensure-beneficiary', ...transferSteps, 'completed']);
      if (point === 'after-state-write') {
        // The state moved on but the next step's message was never sent: only the sweeper moves it,
        // after STALL_AFTER_SECONDS.
        await expectStillUntilSwept(expect, done, step);
      } else {
        // The step died there once, then ran again (SQS redelivered its message) and went on.
        await expectRanAgainAfterDeath(expect, done, step, point);
      }
    },
  );

  it.for([
    // The attempt is recorded before the call: a crash before the call looks like an interrupted
    // attempt, and an interrupted attempt is never retried blindly.
    { point: 'before-provider-call', transfers: 0, label: 'no transfer' },
    // The money moved, the answer was lost with the step: unknown, and never a second transfer.
    { point: 'after-provider-call', transfers: 1, label: 'one transfer' },
    // The first state write of the transfer step is the attempt record (the done write comes after
    // the call): dying after it is dying before the call.
    { point: 'after-state-write', transfers: 0, label: 'no transfer' },
  ] as const)(
    'transfer crashing $point: failed TRANSFER_OUTCOME_UNKNOWN, $label',
    async ({ point, transfers }, { expect }) => {
      // prepare
      const user = await createUser('SANDBOX_BENEFICIARY');
      // fault: the transfer step dies once at this crash point
      await armCrash(user, point, { step: 'transfer' });

      // act
      const started = await startDeposit(user, { amount: 31.25 });
      const ended = await settled(user, started.body.operationID);
      const bank = await sandboxState(user);

      // assess
      expect(ended).toMatchObject({
        success: false,
        status: 'failed',
        step: 'completed',
        type: 'TRANSFER_OUTCOME_UNKNOWN',
      });
      expect(ended.reference).toBeUndefined();
      expect(bank.transfers).toHaveLength(transfers);
      expect(bank.balanceMinor).toBe(cents(user.balance) - cents(31.25) * transfers);
      expect(await beneficiaries(user)).toHaveLength(1);
    },
  );

  it('transfer crashing before-state-write (before the attempt is recorded): done, one transfer', async ({
    expect,
  }) => {
    // prepare
    const user = await createUser('SANDBOX_BENEFICIARY');
    // fault: the transfer step dies once before its first state write (the attempt record)
    await armCrash(user, 'before-state-write', { step: 'transfer' });

    // act
    const started = await startDeposit(user, { amount: 12.34 });
    const done = await settled(user, started.body.operationID);
    const bank = await sandboxState(user);

    // assess
    expect(done).toMatchObject({ status: 'done', reference: expect.any(String) });
    expect(bank.transfers.map((transfer) => transfer.reference)).toEqual([done.reference]);
    expect(bank.balanceMinor).toBe(cents(user.balance) - cents(12.34));
    // Nothing was recorded, so the step ran again once its message came back (and the dead
    // attempt's connection lease ran out).
    await expectRanAgainAfterDeath(expect, done, 'transfer', 'before-state-write');
  });

  it('a lost message (after-state-write in resolve-bank) is re-driven and the deposit is done within 15 s', async ({
    expect,
  }) => {
    // prepare
    const user = await createUser('SANDBOX_BENEFICIARY');
    // fault: resolve-bank dies right after its state write, so the ensure-beneficiary message is lost
    await armCrash(user, 'after-state-write', { step: 'resolve-bank' });

    // act
    const startedAt = Date.now();
    const started = await startDeposit(user, { amount: 44 });
    const stalled = await depositWhen(user, started.body.operationID, (d) => d.step !== 'resolve-bank');
    const done = await settled(user, started.body.operationID, 15_000);
    const tookMs = Date.now() - startedAt;

    // assess
    expect(stalled).toMatchObject({ status: 'initialized', step: 'ensure-beneficiary' });
    expect(done).toMatchObject({ status: 'done', reference: expect.any(String) });
    expect(tookMs).toBeLessThan(15_000);
    await expectStillUntilSwept(expect, done, 'resolve-bank');
    expect((await sandboxState(user)).transfers).toHaveLength(1);
    expect(await beneficiaries(user)).toHaveLength(1);
  });
});

describe.concurrent('duplicate, late and re-ordered messages', () => {
  it('change nothing: one transfer, done, history unchanged', async ({ expect }) => {
    // prepare
    const user = await createUser('SANDBOX_BENEFICIARY');

    // act
    const started = await startDeposit(user, { amount: 18.75 });
    const id: string = started.body.operationID;
    // fault: duplicates of the messages of this deposit's run (SANDBOX_BENEFICIARY: resolve-bank at
    // version 0, ensure-beneficiary at 1, transfer at 2), sent while it runs, out of order.
    const whileRunning = [
      { depositId: id, step: 'transfer' as const, version: 2 },
      { depositId: id, step: 'ensure-beneficiary' as const, version: 1 },
      { depositId: id, step: 'resolve-bank' as const, version: 0 },
    ];
    for (let copy = 0; copy < 3; copy += 1) {
      await Promise.all(whileRunning.map((message) => sendRaw(queueUrl(message.step), [message])));
    }
    const done = await settled(user, id);
    // fault: every step at versions 0..10, to every step queue, after the deposit is done
    const late = steps.flatMap((step) =>
      Array.from({ length: 11 }, (_, version) => ({ depositId: id, step, version })),
    );
    await Promise.all(steps.map((queue) => sendRaw(queueUrl(queue), late)));
    await holdsFor(5_000, async () => {
      const { body } = await readDeposit(user, id);
      expect(body).toEqual(done);
      expect((await sandboxState(user)).transfers).toHaveLength(1);
    });

    // assess
    expect(done).toMatchObject({ status: 'done', reference: expect.any(String) });
    expect(stepsOf(done)).toEqual(['resolve-bank', 'ensure-beneficiary', ...transferSteps, 'completed']);
    const bank = await sandboxState(user);
    expect(bank.transfers.map((transfer) => transfer.reference)).toEqual([done.reference]);
    expect(bank.balanceMinor).toBe(cents(user.balance) - cents(18.75));
    expect(await beneficiaries(user)).toHaveLength(1);
  });

  it('a schedule fired early and twice: the deposit still waits out the cool-down, one transfer', async ({
    expect,
  }) => {
    // prepare
    const user = await createUser('SANDBOX_COOLDOWN_FAST');
    const started = await startDeposit(user, { amount: 27 });
    const id: string = started.body.operationID;
    const cooling = await depositWhen(user, id, (d) => d.step === 'wait-cooldown' || d.step === 'completed');
    const name = await eventually(async () => {
      const { schedules } = await localSchedules();
      return schedules.find((schedule) => schedule.Name.startsWith(`${id}-`))?.Name;
    }, 5_000);

    // act
    // fault: the scheduler fires the wake-up now, before the cool-down ends, and then again
    const early = [await fireSchedule(name), await fireSchedule(name)];
    const firedEarlyAt = Date.now();
    const firedEarly = (await localSchedules()).fired.filter((entry) => entry.name === name);
    const resumesAt = Date.parse(cooling.resumesAt);
    const seenBeforeResume: string[] = [];
    while (Date.now() < resumesAt - 250) {
      const { body } = await readDeposit(user, id);
      const transfers = (await sandboxState(user)).transfers.length;
      // Only reads that came back before the cool-down ended count.
      if (Date.now() < resumesAt) seenBeforeResume.push(`${body.step}/${transfers}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const done = await settled(user, id);
    // fault: and once more after the deposit is done (the schedule may be gone: 404)
    const afterDone = await fireSchedule(name);
    await holdsFor(2_000, async () => {
      expect((await readDeposit(user, id)).body).toEqual(done);
    });
    const bank = await sandboxState(user);

    // assess
    expect(cooling).toMatchObject({
      status: 'initialized',
      step: 'wait-cooldown',
      resumesAt: expect.any(String),
    });
    expect(firedEarlyAt).toBeLessThan(resumesAt);
    expect(early).toEqual([200, 200]);
    expect(firedEarly.map((entry) => entry.early)).toEqual([true, true]);
    // Woken early, twice: still waiting, nothing transferred, until the cool-down is over.
    expect(seenBeforeResume.length).toBeGreaterThan(0);
    expect(new Set(seenBeforeResume)).toEqual(new Set(['wait-cooldown/0']));
    expect([200, 404]).toContain(afterDone);
    expect(done).toMatchObject({ status: 'done', reference: expect.any(String) });
    const history = done.history as HistoryEntry[];
    // The bank hides the new beneficiary until its cool-down ends: woken, the deposit leaves
    // wait-cooldown for the look-up of its id, then transfers.
    expect(stepsOf(done)).toEqual([
      'resolve-bank',
      'ensure-beneficiary',
      'wait-cooldown',
      'ensure-beneficiary',
      ...transferSteps,
      'completed',
    ]);
    const resumed = history.find((entry) => entry.step === 'transfer');
    expect(Date.parse(resumed?.at ?? '')).toBeGreaterThanOrEqual(resumesAt);
    expect(bank.transfers.map((transfer) => transfer.reference)).toEqual([done.reference]);
    expect(Date.parse(bank.transfers[0]?.createdAt ?? '')).toBeGreaterThanOrEqual(resumesAt);
    expect(bank.balanceMinor).toBe(cents(user.balance) - cents(27));
    expect(await beneficiaries(user)).toHaveLength(1);
  });
});

describe.concurrent('the provider fails', () => {
  it.for([
    {
      name: 'timeout after the bank moved the money',
      fault: { outcome: 'timeout', timeoutMs: 2_500, phase: 'after' },
      reason: 'timeout',
      transfers: 1,
      label: 'one transfer',
    },
    {
      name: 'timeout before the bank saw it',
      fault: { outcome: 'timeout', timeoutMs: 2_500, phase: 'before' },
      reason: 'timeout',
      transfers: 0,
      label: 'no transfer',
    },
    {
      name: '503 after the bank moved the money',
      fault: { outcome: 'error', status: 503, phase: 'after' },
      reason: 'server_error',
      transfers: 1,
      label: 'one transfer',
    },
  ])(
    'transfer $name: failed TRANSFER_OUTCOME_UNKNOWN, $label, never two',
    async ({ fault, reason, transfers }, { expect }) => {
      // prepare
      const user = await createUser('SANDBOX_BENEFICIARY');
      // fault: the sandbox fails the user's next transfer call (PROVIDER_TIMEOUT_MS is 2000)
      await setFaults(user, [{ path: TRANSFER, times: 1, ...fault }]);

      // act
      const started = await startDeposit(user, { amount: 60 });
      const ended = await settled(user, started.body.operationID);
      await holdsFor(1_500, async () => {
        expect((await sandboxState(user)).transfers).toHaveLength(transfers);
      });
      const bank = await sandboxState(user);
      const detail = await ops('/v1/ops/deposits/get', { operationID: started.body.operationID });

      // assess: the owner hears the fixed message; the operators read which fault it was
      expect(ended).toMatchObject({
        success: false,
        status: 'failed',
        type: 'TRANSFER_OUTCOME_UNKNOWN',
        msg: "The transfer's outcome is not known: an operator will settle it with the bank",
      });
      expect(detail.body.msg).toContain(reason);
      expect(bank.transfers).toHaveLength(transfers);
      expect(bank.balanceMinor).toBe(cents(user.balance) - cents(60) * transfers);
    },
  );

  it('a timeout after the beneficiary was created, at a bank that hides new ones: still one beneficiary, all done', async ({
    expect,
  }) => {
    // prepare
    const user = await createUser('SANDBOX_COOLDOWN_FAST');
    // fault: the sandbox creates the beneficiary, then holds the answer past PROVIDER_TIMEOUT_MS
    await setFaults(user, [
      {
        path: providerPath('beneficiariesCreate'),
        outcome: 'timeout',
        timeoutMs: 2_500,
        phase: 'after',
        times: 1,
      },
    ]);

    // act
    const started = await Promise.all([
      startDeposit(user, { amount: 21 }),
      startDeposit(user, { amount: 22 }),
    ]);
    const ended = await Promise.all(started.map((reply) => settled(user, reply.body.operationID, 30_000)));
    const bank = await sandboxState(user);

    // assess
    expect(ended.map((deposit) => `${deposit.status} ${deposit.type ?? ''}`.trim())).toEqual([
      'done',
      'done',
    ]);
    expect(bank.transfers).toHaveLength(2);
    expect(await beneficiaries(user)).toHaveLength(1);
  });

  it('resolve-bank dying after the write of its retry: still until swept, then done with one transfer', async ({
    expect,
  }) => {
    // prepare
    const user = await createUser('SANDBOX_BENEFICIARY');
    // fault: the first metadata read answers 503, so the step's first write is its retry (as when a
    // slow machine times the call out), and the step dies right after that write
    await setFaults(user, [{ path: METADATA, outcome: 'error', status: 503, times: 1 }]);
    await armCrash(user, 'after-state-write', { step: 'resolve-bank' });

    // act
    const started = await startDeposit(user, { amount: 12 });
    const done = await settled(user, started.body.operationID);

    // assess
    expect(done).toMatchObject({ status: 'done', reference: expect.any(String) });
    const history = done.history as HistoryEntry[];
    expect(history[1]).toMatchObject({ step: 'resolve-bank', note: 'provider server_error' });
    await expectStillUntilSwept(expect, done, 'resolve-bank');
    expect((await sandboxState(user)).transfers.map((transfer) => transfer.reference)).toEqual([
      done.reference,
    ]);
  });

  it('a 503 on the metadata read is retried and the deposit is done', async ({ expect }) => {
    // prepare
    const user = await createUser('SANDBOX_BENEFICIARY');
    // fault: the sandbox answers 503 to the user's next two metadata reads
    await setFaults(user, [{ path: METADATA, outcome: 'error', status: 503, times: 2 }]);

    // act
    const started = await startDeposit(user, { amount: 15 });
    const done = await settled(user, started.body.operationID);
    const bank = await sandboxState(user);

    // assess
    expect(done).toMatchObject({ status: 'done', reference: expect.any(String) });
    const retries = (done.history as HistoryEntry[]).filter(
      (entry) => entry.step === 'resolve-bank' && entry.note === 'provider server_error',
    );
    expect(retries.length).toBeGreaterThanOrEqual(1);
    expect(retries.length).toBeLessThanOrEqual(2);
    expect(bank.transfers.map((transfer) => transfer.reference)).toEqual([done.reference]);
    expect(bank.balanceMinor).toBe(cents(user.balance) - cents(15));
  });
});
