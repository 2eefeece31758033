import { expireInput } from '#shared/deposits/journey/input';
import { resolveBank } from '#shared/deposits/steps/resolve-bank';
import { handlerContext } from '#shared/wiring/handler-context';
import { stepConsumer } from '#shared/wiring/step-consumer';

const context = await handlerContext('steps-resolve-bank');

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
