import { expireInput } from '#shared/deposits/input';
import { type ResolveBankContext, resolveBank } from '#shared/deposits/steps/resolve-bank';
import { schedulerOf } from '#shared/wiring/messaging';
import { stepConsumer } from '#shared/wiring/step-consumer';
import { connectionPorts } from '#shared/wiring/steps';
import { tableEntities } from '#shared/wiring/table';

const context: ResolveBankContext = {
  ...connectionPorts('resolve-bank'),
  scheduler: schedulerOf('resolve-bank'),
  banks: tableEntities.banks(),
};

export const handler = stepConsumer(
  {
    step: 'resolve-bank',
    deposits: context.deposits,
    run: (deposit) => resolveBank(deposit, context),
    // A question the bank asked on its metadata expires.
    expire: (deposit, message) => expireInput(context, deposit, message),
  },
  context,
);
