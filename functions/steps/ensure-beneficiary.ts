import { expireInput } from '#shared/deposits/journey/input';
import { ensureBeneficiary } from '#shared/deposits/steps/ensure-beneficiary';
import { stepConsumer } from '#shared/wiring/step-consumer';
import { stepContext } from '#shared/wiring/step-context';

const context = stepContext('ensure-beneficiary');

export const handler = stepConsumer(
  {
    step: 'ensure-beneficiary',
    deposits: context.deposits,
    run: (deposit) => ensureBeneficiary(deposit, context),
    expire: (deposit, message) => expireInput(context, deposit, message),
  },
  context,
);
