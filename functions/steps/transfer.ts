import { expireInput } from '#shared/deposits/input';
import { type TransferContext, transfer } from '#shared/deposits/steps/transfer';
import { schedulerOf } from '#shared/wiring/messaging';
import { stepConsumer } from '#shared/wiring/step-consumer';
import { connectionPorts } from '#shared/wiring/steps';
import { tableEntities } from '#shared/wiring/table';

const ports = connectionPorts('transfer');
const sharedWakes = tableEntities.sharedWakes();
const context: TransferContext = {
  ...ports,
  scheduler: schedulerOf('transfer'),
  beneficiaries: tableEntities.claims(),
  banks: tableEntities.banks(),
  sharedWakes,
  // A source given up on at its transfer step wakes the deposits that followed its wake-up.
  followers: { sharedWakes, queues: ports.queues },
};

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
