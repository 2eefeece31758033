import { expireInput } from '#shared/deposits/input';
import { type EnsureBeneficiaryContext, ensureBeneficiary } from '#shared/deposits/steps/ensure-beneficiary';
import { schedulerOf } from '#shared/wiring/messaging';
import { stepConsumer } from '#shared/wiring/step-consumer';
import { connectionPorts } from '#shared/wiring/steps';
import { tableEntities } from '#shared/wiring/table';

const ports = connectionPorts('ensure-beneficiary');
const sharedWakes = tableEntities.sharedWakes();
const context: EnsureBeneficiaryContext = {
  ...ports,
  scheduler: schedulerOf('ensure-beneficiary'),
  claims: tableEntities.claims(),
  sharedWakes,
  // A source failing at its look-up wakes the deposits that followed its wake-up.
  followers: { sharedWakes, queues: ports.queues },
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
