import { type ReconcileContext, reconcile } from '#shared/deposits/steps/reconcile';
import { schedulerOf } from '#shared/wiring/messaging';
import { stepConsumer } from '#shared/wiring/step-consumer';
import { connectionPorts } from '#shared/wiring/steps';
import { tableEntities } from '#shared/wiring/table';

const context: ReconcileContext = {
  ...connectionPorts('reconcile'),
  scheduler: schedulerOf('reconcile'),
  beneficiaries: tableEntities.claims(),
  banks: tableEntities.banks(),
};

export const handler = stepConsumer(
  { step: 'reconcile', deposits: context.deposits, run: (deposit) => reconcile(deposit, context) },
  context,
);
