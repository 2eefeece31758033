import { reconcile } from '#shared/deposits/steps/reconcile';
import { stepConsumer } from '#shared/wiring/step-consumer';
import { stepContext } from '#shared/wiring/step-context';

const context = stepContext('reconcile');

export const handler = stepConsumer(
  { step: 'reconcile', deposits: context.deposits, run: (deposit) => reconcile(deposit, context) },
  context,
);
