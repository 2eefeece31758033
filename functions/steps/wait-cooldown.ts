import { waitCooldown } from '#shared/deposits/steps/wait-cooldown';
import { handlerContext } from '#shared/wiring/handler-context';
import { stepConsumer } from '#shared/wiring/step-consumer';

// Writes only to end a deposit (or a source, its followers handed on) whose wake-up cannot be
// armed, try after try.
const context = await handlerContext('steps-wait-cooldown');

export const handler = stepConsumer(
  { step: 'wait-cooldown', deposits: context.deposits, run: (deposit) => waitCooldown(deposit, context) },
  context,
);
