import { systemClock } from '#shared/clock';
import { type WaitCooldownContext, waitCooldown } from '#shared/deposits/steps/wait-cooldown';
import { queuesOf, schedulerOf } from '#shared/wiring/messaging';
import { stepConsumer } from '#shared/wiring/step-consumer';
import { depositSettings, tableEntities } from '#shared/wiring/table';

const context: WaitCooldownContext = {
  clock: systemClock,
  settings: depositSettings(),
  queues: queuesOf('wait-cooldown'),
  scheduler: schedulerOf('wait-cooldown'),
};

export const handler = stepConsumer({
  step: 'wait-cooldown',
  deposits: tableEntities.deposits(),
  run: (deposit) => waitCooldown(deposit, context),
});
