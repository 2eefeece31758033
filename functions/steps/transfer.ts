import { expireInput } from '#shared/deposits/input';
import { type TransferContext, transfer } from '#shared/deposits/steps/transfer';
import { schedulerOf } from '#shared/wiring/messaging';
import { stepConsumer } from '#shared/wiring/step-consumer';
import { connectionPorts } from '#shared/wiring/steps';
import { tableEntities } from '#shared/wiring/table';

const ports = connectionPorts('transfer');
const context: TransferContext = {
  ...ports,
  scheduler: schedulerOf('transfer'),
  beneficiaries: ports.claims,
  banks: tableEntities.banks(),
  // A ready source takes its followers; one given up on wakes them through `ports.followers`.
  sharedWakes: ports.followers.sharedWakes,
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
