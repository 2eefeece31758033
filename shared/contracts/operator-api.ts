/** The operator API's contract (see `openapi.ts`): its routes, their schemas, their examples. */
import {
  CancelRequest,
  Deliveries,
  DeliveriesRequest,
  DepositStats,
  GetRequest,
  ListRequest,
  OperatorDeposit,
  OperatorDepositList,
  QueueDepths,
  QueuesRequest,
  Redriven,
  RedriveRequest,
  ResendRequest,
  Resent,
  ResolveRequest,
  StatsRequest,
} from '#shared/contracts/operator-schemas';
import type { ApiContract } from './openapi.ts';

const depositId = 'dep_01M812W7SXHYZAEH7814YWVTV8';
const security = ['operatorToken'];
const deposit = (description: string) => ({ 200: { description, schema: OperatorDeposit } });

export const operatorContract: ApiContract = {
  api: 'operator',
  title: 'Operator API',
  description:
    'For the people who run the service: any deposit, by status; settle a transfer whose outcome is unknown; cancel or redrive a deposit; a deposit\'s webhook deliveries, and resend one; the counts and times; the queues. In AWS every route takes the operator\'s IAM identity (SigV4, `execute-api:Invoke`); locally `Authorization: Bearer <operator token>`, which `npm start` prints (docs/operating.md, "Operator API").',
  tags: [
    { name: 'deposits', description: 'Read and act on any deposit' },
    { name: 'queues', description: "The queues' depths" },
  ],
  securitySchemes: {
    operatorToken: {
      type: 'http',
      scheme: 'bearer',
      description:
        'Locally: the operator token `npm start` prints (or `OPERATOR_TOKEN`). In AWS the API takes SigV4 (IAM) instead.',
    },
  },
  routes: [
    {
      method: 'POST',
      path: '/v1/ops/deposits/list',
      tag: 'deposits',
      summary: "A status bucket's deposits, newest first",
      description:
        '`outcome_unknown` holds the failed deposits whose transfer outcome is unknown and not yet resolved (`failed` the others). Filter by `step` and by creation time (`from` inclusive, `to` exclusive); send `cursor` back with the same filters for the next page.',
      security,
      body: {
        schema: ListRequest,
        example: { status: 'outcome_unknown', from: '2026-11-01T00:00:00Z', limit: 20 },
      },
      responses: {
        200: {
          description: 'A page of deposits, and a cursor while more may follow',
          schema: OperatorDepositList,
        },
      },
    },
    {
      method: 'POST',
      path: '/v1/ops/deposits/get',
      tag: 'deposits',
      summary: 'Read any deposit, with its history and where it stands in the workflow',
      security,
      body: { schema: GetRequest, example: { operationID: depositId } },
      responses: deposit('The deposit'),
    },
    {
      method: 'POST',
      path: '/v1/ops/deposits/resolve',
      tag: 'deposits',
      summary: 'Settle a transfer whose outcome is unknown',
      description:
        "Only for a deposit failed `TRANSFER_OUTCOME_UNKNOWN` and not yet resolved (else 409 `DEPOSIT_NOT_RESOLVABLE`). `done` (with the bank's `reference`): the deposit is done; `failed`: it is failed `TRANSFER_NOT_EXECUTED`. The resolution, a history note and the caller's webhook event are one write. A `done` of a deposit above its currency's approval threshold (`RESOLVE_APPROVAL_ABOVE`, minor units; a currency it does not name has none) is only proposed: 202 with `pendingResolution`, nothing told to the caller; a second, different operator's same `done` (same `reference`) applies it, with `resolution.approval`. Its proposer's own again is 403 `RESOLUTION_NEEDS_ANOTHER_OPERATOR`; another operator's otherwise (another reference, or `failed`) is 409 `RESOLUTION_DISAGREES`; the proposer may change it (another reference proposes anew, `failed` applies). A proposal lapses after 24 hours, and the next `done` proposes anew.",
      security,
      body: {
        schema: ResolveRequest,
        example: {
          operationID: depositId,
          outcome: 'done',
          reference: 'TRX-20261123-0042',
          reason: 'The bank statement shows the transfer',
        },
      },
      responses: {
        ...deposit('The deposit, resolved'),
        202: {
          description:
            'The deposit, its `done` proposed: it waits for a second operator (`pendingResolution`)',
          schema: OperatorDeposit,
        },
      },
    },
    {
      method: 'POST',
      path: '/v1/ops/deposits/cancel',
      tag: 'deposits',
      summary: 'Cancel a deposit before its transfer',
      description:
        "The owner's cancel, by an operator: a deposit at its transfer, or finished, is 409 `DEPOSIT_NOT_CANCELLABLE`.",
      security,
      body: {
        schema: CancelRequest,
        example: { operationID: depositId, reason: 'The customer asked by phone' },
      },
      responses: deposit('The deposit, failed `CANCELLED`'),
    },
    {
      method: 'POST',
      path: '/v1/ops/deposits/redrive',
      tag: 'deposits',
      summary: "Send a deposit's current step message now, as the sweeper would",
      description:
        'A finished deposit is 409 `DEPOSIT_NOT_IN_FLIGHT` (a finished payment source is re-driven at its transfer step, which hands on any followers it left). A deposit whose transfer attempt is on record and that has not stalled yet (its `checkAt` is ahead) is 409 `DEPOSIT_TRANSFER_IN_FLIGHT`: its call may still be running.',
      security,
      body: { schema: RedriveRequest, example: { operationID: depositId } },
      responses: { 200: { description: 'The message sent', schema: Redriven } },
    },
    {
      method: 'POST',
      path: '/v1/ops/deposits/deliveries',
      tag: 'deposits',
      summary: "A deposit's webhook deliveries: each event, its tries and where it stands",
      description:
        "One per event the notifier tried to deliver (none without a webhook): `delivered`, `retrying` (with `nextTryAt`) or `dead_lettered` (its last try failed: it rests in the notify queue's DLQ), its most recent tries with the webhook's status or the error, and operators' resends. `now` is the service's time, for the countdown to a next try.",
      security,
      body: { schema: DeliveriesRequest, example: { operationID: depositId } },
      responses: { 200: { description: 'The deliveries, in the order of their events', schema: Deliveries } },
    },
    {
      method: 'POST',
      path: '/v1/ops/deposits/resend',
      tag: 'deposits',
      summary: 'Queue one event of a deposit again for its webhook',
      description:
        'The event as the notifier first sent it, to the notify queue: its id, which is the `webhook-id`, is the same, so a receiver that took it already drops it. Counted on the delivery with who and when. An event whose delivery was never tried is 404 `DELIVERY_NOT_FOUND`.',
      security,
      body: { schema: ResendRequest, example: { operationID: depositId, eventId: `${depositId}.v6` } },
      responses: { 200: { description: 'The event, queued again', schema: Resent } },
    },
    {
      method: 'POST',
      path: '/v1/ops/deposits/stats',
      tag: 'deposits',
      summary:
        'How many deposits each status holds, created over time, and how long the done ones took by step',
      description:
        "Filtered as the list is (`step`, `from` inclusive, `to` exclusive; the range of the plot is the one asked, else from the oldest deposit to now). Counts come from the status index, at most 10,000 a status (`capped`: at least that many); the times to done from the histories of the newest 100 done deposits, payment sources aside. `now` is the service's time.",
      security,
      body: { schema: StatsRequest, example: { from: '2026-11-22T00:00:00Z', to: '2026-11-23T00:00:00Z' } },
      responses: { 200: { description: 'The counts, the bins and the times', schema: DepositStats } },
    },
    {
      method: 'POST',
      path: '/v1/ops/queues',
      tag: 'queues',
      summary: 'Every queue of the service and its DLQ: messages visible, in flight, delayed',
      security,
      body: { schema: QueuesRequest, example: {} },
      responses: { 200: { description: 'The depths, approximate as SQS counts them', schema: QueueDepths } },
    },
  ],
};
