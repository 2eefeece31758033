/**
 * The faults a chaos run injects from outside the stack, beside the provider's and the crash points
 * (which the plan arms per user): copies of step messages, early and double schedule fires, webhook
 * receiver outages, and one restart of the step workers.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { DepositRun } from './audit.ts';
import type { StepMessage } from './clients.ts';
import type { RunContext } from './context.ts';
import { steps } from './faults.ts';
import { type Random, randomStream } from './random.ts';

/**
 * Copies of the deposit's step messages, straight to the step queues: the live message again (so two
 * workers run the same step at once), an expiry of its question ahead of time, an old version's
 * message late, and a later step's (or version's) message early; each after a random delay, so they
 * also arrive out of order.
 *
 * Copies duplicate messages the system sends; they never forge one it never sends. The version that
 * records a transfer attempt is sent no message: only the sweeper re-drives it, after a stall, that is
 * once the step that wrote it died (so it ends TRANSFER_OUTCOME_UNKNOWN, by design, and the crash
 * points cover that). A forged message for it, run while the attempt's call is in flight, would end
 * the deposit the same way for no fault of the system. So the live copy of a deposit at its transfer
 * with an attempt on record is of the message that woke its step (the version before), and early
 * copies never go to the transfer queue with a later version. `reconcile` is sent its message at the
 * version that records the operation's id, so its live copies are of that version: real duplicates.
 */
export async function sendCopies(context: RunContext, run: DepositRun, depositId: string, random: Random) {
  const item = await context.clients.depositItem(depositId);
  if (!item || item.step === 'completed') return;
  const { step } = item;
  // The transfer's own message at the version that records its attempt is never sent (see above);
  // every other step's live message, reconcile's included, is copied at the version it is sent at.
  const version = item.transfer?.attempt && step === 'transfer' ? item.version - 1 : item.version;
  const messages: StepMessage[] = [];
  for (let copy = random.int(1, 3); copy > 0; copy -= 1) {
    messages.push({ depositId, step, version, kind: 'run', delaySeconds: random.int(0, 2) });
  }
  if (item.status === 'user_input_required' && random.chance(0.5)) {
    messages.push({ depositId, step, version, kind: 'expire-input', delaySeconds: random.int(0, 3) });
  }
  if (version > 0 && random.chance(0.6)) {
    messages.push({
      depositId,
      step: random.pick(steps),
      version: random.int(0, version - 1),
      kind: 'run',
      delaySeconds: random.int(0, 5),
    });
  }
  if (random.chance(0.5)) {
    const later = random.pick(steps);
    messages.push({
      depositId,
      step: later,
      version: later === 'transfer' ? version : version + random.int(0, 2),
      kind: 'run',
      delaySeconds: random.int(0, 4),
    });
  }
  await context.clients.sendStepMessages(messages);
  run.duplicateMessages += messages.length;
  context.counters.duplicateMessages += messages.length;
  run.copies.push(
    ...messages.map((message) => `${message.step}@v${message.version}+${message.delaySeconds ?? 0}s`),
  );
}

/** After the end: every step's message of the last versions, late. */
export async function sendLateCopies(
  context: RunContext,
  run: DepositRun,
  depositId: string,
  random: Random,
) {
  const item = await context.clients.depositItem(depositId);
  if (!item) return;
  const messages = steps.flatMap((step) =>
    [0, 1, 2, 3]
      .map((back) => item.version - back)
      .filter((version) => version >= 0)
      .map(
        (version): StepMessage => ({ depositId, step, version, kind: 'run', delaySeconds: random.int(0, 5) }),
      ),
  );
  await context.clients.sendStepMessages(messages);
  run.duplicateMessages += messages.length;
  context.counters.duplicateMessages += messages.length;
}

/**
 * The faults of the whole run, on a tick: schedules fired early (and twice), the webhook receiver
 * down for a while, and once, mid-run, a restart of the step workers.
 */
export function chaosLoop(context: RunContext) {
  const { clients, counters, stack } = context;
  const random = randomStream(context.plan.seed, 'chaos');
  const total = context.plan.deposits.length;
  const restartAfter = Math.max(1, Math.floor(total * (0.3 + random.next() * 0.3)));
  const restartPauseMs = random.int(500, 2_500);
  // One outage of the webhook receiver for sure, while deposits are in flight; more at random.
  const outageAfter = Math.max(1, Math.floor(total * (0.2 + random.next() * 0.3)));
  let outages = 0;
  let stopped = false;
  const restart = async () => {
    if (counters.restart) return;
    const startedAt = Date.now();
    counters.restart = { afterDeposits: counters.started, pauseMs: restartPauseMs, tookMs: 0 };
    await stack.restartWorkers({ pauseMs: restartPauseMs });
    counters.restart.tookMs = Date.now() - startedAt;
    context.say(
      `chaos: step workers restarted after ${counters.restart.afterDeposits} deposits started (${restartPauseMs} ms without workers)`,
    );
  };
  const loop = (async () => {
    while (!stopped) {
      await sleep(random.int(1_000, 2_000));
      if (stopped) break;
      try {
        if (random.chance(0.4)) {
          const { schedules } = await clients.schedules();
          const sorted = schedules.sort((a, b) => a.Name.localeCompare(b.Name));
          const chosen = random.shuffle(sorted).slice(0, random.int(1, 3));
          for (const schedule of chosen) {
            const times = random.chance(0.5) ? 2 : 1;
            for (let fire = 0; fire < times; fire += 1) {
              if ((await clients.fireSchedule(schedule)) === 200) {
                counters.scheduleFires += 1;
                counters.schedulesFired.add(schedule.Name);
              }
            }
          }
        }
        const due = outages === 0 && counters.started >= outageAfter;
        if (due || (random.chance(0.12) && counters.inFlight >= 8)) {
          // The receiver is down for a few seconds: it refuses whatever comes, then takes deliveries again.
          outages += 1;
          const downMs = random.int(1_000, 4_000);
          const before = await clients.refusedDeliveries();
          await clients.refuseDeliveries(1_000_000);
          await sleep(downMs);
          await clients.refuseDeliveries(0);
          counters.outages += 1;
          counters.outageMs += downMs;
          counters.outageRefusals += (await clients.refusedDeliveries()) - before;
        }
        if (!counters.restart && counters.started >= restartAfter) await restart();
      } catch (error) {
        context.say(`chaos: a fault could not be injected: ${(error as Error).message}`);
      }
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
      // A run too short to reach it still restarts once.
      await restart();
    },
  };
}
