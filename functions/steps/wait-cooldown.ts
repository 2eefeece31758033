import { systemClock } from '#shared/clock';
import { type WaitCooldownContext, waitCooldown } from '#shared/deposits/steps/wait-cooldown';
import { queuesOf, schedulerOf } from '#shared/wiring/messaging';
import { stepConsumer } from '#shared/wiring/step-consumer';
import { depositSettings, tableEntities } from '#shared/wiring/table';
import { failPorts } from '#shared/wiring/transitions';

const context: WaitCooldownContext = {
  clock: systemClock,
  settings: depositSettings(),
  queues: queuesOf('wait-cooldown'),
  scheduler: schedulerOf('wait-cooldown'),
  sharedWakes: tableEntities.sharedWakes(),
};
// Only to end a deposit (or a source, its followers handed on) whose wake-up cannot be armed, try after try.
const failing = failPorts('wait-cooldown');

export const handler = stepConsumer(
  { step: 'wait-cooldown', deposits: failing.deposits, run: (deposit) => waitCooldown(deposit, context) },
  failing,
);
