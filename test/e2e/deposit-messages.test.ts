/**
 * Step messages that come twice, late or out of order, end to end on the local stack: copies sent
 * straight to the step queues while a deposit runs and after it ended, and a scheduler that fires a
 * wake-up early and twice (the local scheduler's /_local fire). They change nothing: one transfer,
 * the cool-down waited out, the history unchanged.
 */
import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, describe, inject, it } from 'vitest';
import {
  beneficiaries,
  cents,
  type HistoryEntry,
  holdsFor,
  type Step,
  sandboxState,
  settled,
} from '../support/deposit-checks.ts';
import {
  depositWhen,
  fireSchedule,
  localSchedules,
  readDeposit,
  startDeposit,
  stepsOf,
  transferSteps,
} from '../support/deposits.ts';
import { createUser, eventually } from '../support/sandbox.ts';

const steps: Step[] = ['resolve-bank', 'ensure-beneficiary', 'wait-cooldown', 'transfer'];

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
