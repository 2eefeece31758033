import { waitCooldown } from '#shared/deposits/steps/wait-cooldown';
import { stepConsumer } from '#shared/wiring/step-consumer';
import { stepContext } from '#shared/wiring/step-context';

// Writes only to end a deposit (or a source, its followers handed on) whose wake-up cannot be
// armed, try after try.
const context = stepContext('wait-cooldown');

export const handler = stepConsumer(
  { step: 'wait-cooldown', deposits: context.deposits, run: (deposit) => waitCooldown(deposit, context) },
  context,
);
