import { expireInput } from '#shared/deposits/journey/input';
import { ensureBeneficiary } from '#shared/deposits/steps/ensure-beneficiary';
import { handlerContext } from '#shared/wiring/handler-context';
import { stepConsumer } from '#shared/wiring/step-consumer';

const context = await handlerContext('steps-ensure-beneficiary');

export const handler = stepConsumer(
  {
    step: 'ensure-beneficiary',
    deposits: context.deposits,
    run: (deposit) => ensureBeneficiary(deposit, context),
    expire: (deposit, message) => expireInput(context, deposit, message),
  },
  context,
);
