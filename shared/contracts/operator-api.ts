/** The operator API's contract (see `openapi.ts`): its routes, their schemas, their examples. */
import {
  CancelRequest,
  GetRequest,
  ListRequest,
  OperatorDeposit,
  OperatorDepositList,
  QueueDepths,
  QueuesRequest,
  Redriven,
  RedriveRequest,
  ResolveRequest,
} from '#shared/contracts/operator-schemas';
import type { ApiContract } from './openapi.ts';

const depositId = 'dep_01M812W7SXHYZAEH7814YWVTV8';
const security = ['operatorToken'];
const deposit = (description: string) => ({ 200: { description, schema: OperatorDeposit } });

export const operatorContract: ApiContract = {
  api: 'operator',
  title: 'Operator API',
  description:
    'For the people who run the service: any deposit, by status; settle a transfer whose outcome is unknown; cancel or redrive a deposit; the queues. In AWS every route takes the operator\'s IAM identity (SigV4, `execute-api:Invoke`); locally `Authorization: Bearer <operator token>`, which `npm start` prints (docs/operating.md, "Operator API").',
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
        "Only for a deposit failed `TRANSFER_OUTCOME_UNKNOWN` and not yet resolved (else 409 `DEPOSIT_NOT_RESOLVABLE`). `done` (with the bank's `reference`): the deposit is done; `failed`: it is failed `TRANSFER_NOT_EXECUTED`. The resolution, a history note and the caller's webhook event are one write.",
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
      responses: deposit('The deposit, resolved'),
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
      path: '/v1/ops/queues',
      tag: 'queues',
      summary: 'Every queue of the service and its DLQ: messages visible, in flight, delayed',
      security,
      body: { schema: QueuesRequest, example: {} },
      responses: { 200: { description: 'The depths, approximate as SQS counts them', schema: QueueDepths } },
    },
  ],
};
