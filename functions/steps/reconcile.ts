import { reconcile } from '#shared/deposits/steps/reconcile';
import { handlerContext } from '#shared/wiring/handler-context';
import { stepConsumer } from '#shared/wiring/step-consumer';

const context = await handlerContext('steps-reconcile');

export const handler = stepConsumer(
  { step: 'reconcile', deposits: context.deposits, run: (deposit) => reconcile(deposit, context) },
  context,
);
