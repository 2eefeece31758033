import { expireInput } from '#shared/deposits/input';
import { type EnsureBeneficiaryContext, ensureBeneficiary } from '#shared/deposits/steps/ensure-beneficiary';
import { schedulerOf } from '#shared/wiring/messaging';
import { stepConsumer } from '#shared/wiring/step-consumer';
import { connectionPorts } from '#shared/wiring/steps';

const ports = connectionPorts('ensure-beneficiary');
const context: EnsureBeneficiaryContext = {
  ...ports,
  scheduler: schedulerOf('ensure-beneficiary'),
  // Follows a source's wake-up; a source failing at its look-up wakes its followers (`ports.followers`).
  sharedWakes: ports.followers.sharedWakes,
};

export const handler = stepConsumer(
  {
    step: 'ensure-beneficiary',
    deposits: context.deposits,
    run: (deposit) => ensureBeneficiary(deposit, context),
    expire: (deposit, message) => expireInput(context, deposit, message),
  },
  context,
);
