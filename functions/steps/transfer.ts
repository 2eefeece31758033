import { expireInput } from '#shared/deposits/journey/input';
import { transfer } from '#shared/deposits/steps/transfer';
import { handlerContext } from '#shared/wiring/handler-context';
import { stepConsumer } from '#shared/wiring/step-consumer';

const context = await handlerContext('steps-transfer');

export const handler = stepConsumer(
  {
    step: 'transfer',
    deposits: context.deposits,
    run: (deposit) => transfer(deposit, context),
    // A deposit woken at the transfer while in its cool-down may be moved on; a question expires.
    expire: (deposit, message) => expireInput(context, deposit, message),
  },
  context,
);
