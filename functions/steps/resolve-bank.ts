import { type ResolveBankContext, resolveBank } from '#shared/deposits/steps/resolve-bank';
import { stepConsumer } from '#shared/wiring/step-consumer';
import { connectionPorts } from '#shared/wiring/steps';

const context: ResolveBankContext = connectionPorts('resolve-bank');

export const handler = stepConsumer(
  {
    step: 'resolve-bank',
    deposits: context.deposits,
    run: (deposit) => resolveBank(deposit, context),
  },
  context,
);
