/**
 * What an operator's handler is given beyond the deposit domain's ports, by its line of
 * `shared/deposits/reach.ts`: the deposits by status and their times, the queues' depths, and the
 * amounts above which a resolution needs a second operator.
 */
import type { ReachName } from '#shared/deposits/reach';
import type { When } from '#shared/deposits/step-context';
import type { ApprovalThresholds } from './approval.ts';
import type { QueueDepths, StatusDeposits, StatusTimes } from './ports.ts';

export type OperatorContext<H extends ReachName> = When<
  H,
  'statusIndex',
  true,
  { byStatus: StatusDeposits; times: StatusTimes }
> &
  When<H, 'queueDepths', true, { depths: QueueDepths }> &
  When<H, 'approvals', true, { approvalAbove: ApprovalThresholds }>;
