/** The deposits API's contract (see `openapi.ts`): its routes, their schemas, their examples. */
import * as z from 'zod';
import {
  AnswerDepositRequest,
  CancelDepositRequest,
  CancelSourceRequest,
  CreateDepositRequest,
  CreateSourceRequest,
  Deposit,
  DepositList,
  GetDepositRequest,
  GetSourceRequest,
  Health,
  IdempotencyKey,
  ListDepositsRequest,
  ListSourcesRequest,
  Source,
  SourceList,
} from '#shared/contracts/deposits-schemas';
import { type ApiContract, connectionBearer } from './openapi.ts';

const credentials = { appSecret: 'sandbox-local-app-secret', userSecret: 'us_2f8a6c1e9b7d4a3f' };
const depositId = 'dep_01M812W7SXHYZAEH7814YWVTV8';
const sourceId = 'src_01M812W7SXHYZAEH7814YWVTV9';
/**
 * One scheme, which the reference page's Authorize fills as a newcomer does (the token alone, the
 * page adds `Bearer `). In AWS `Authorization` is the backend's own (docs/deposits.md, "Who may
 * call"), and the connection travels in `X-Provider-Authorization`, which each route names.
 */
const security = ['connectionToken'];

export const depositsContract: ApiContract = {
  api: 'deposits',
  title: 'Deposits API',
  description:
    "Moves money from a user's bank account into the wallet account through the open-banking provider, durably, in the background. Every deposits route takes the user's provider connection and its secrets in the body: locally the access token in `Authorization: Bearer <accessToken>` (Authorize on this page), in AWS in `X-Provider-Authorization: Bearer <accessToken>`; in AWS the caller must also be the wallet's backend: `Authorization` carries its IAM SigV4 signature or its JWT (docs/deposits.md, \"Who may call\").",
  tags: [
    { name: 'deposits', description: 'Start, read, list and cancel deposits' },
    {
      name: 'sources',
      description: "Payment sources: a user's connection prepared for deposits at onboarding",
    },
    { name: 'service', description: 'Health' },
  ],
  securitySchemes: {
    connectionToken: {
      ...connectionBearer,
      description: `${connectionBearer.description} Paste the token alone: it goes as \`Authorization: Bearer <token>\`. In AWS, send it as \`X-Provider-Authorization\` (each route's header) instead.`,
    },
  },
  securedHeaders: z.object({
    'x-provider-authorization': z.string().optional().meta({
      description:
        "`Bearer <accessToken>` of the user's connection where `Authorization` carries the backend's own identity (in AWS: its SigV4 signature or JWT); taken over `Authorization` when sent. Locally, Authorize is enough: leave it empty.",
    }),
  }),
  routes: [
    {
      method: 'POST',
      path: '/v1/deposits/create',
      tag: 'deposits',
      summary: 'Start a deposit (or resume it with the answers to the bank)',
      description:
        'Answers at once; the steps run in the background. The same `Idempotency-Key` with the same body answers the deposit as it stands (200); with `userInputs` while it waits for input, resumes it; with another body, 409 `IDEMPOTENCY_KEY_REUSED`.',
      security,
      headers: z.object({ 'idempotency-key': IdempotencyKey }),
      body: {
        schema: CreateDepositRequest,
        example: { ...credentials, amount: 125.5, senderID: 'acc_5d1f0c2b', walletAccountID: 'wallet-aed' },
      },
      responses: {
        202: { description: 'Started', schema: Deposit },
        200: { description: 'Already started with this key: the deposit as it stands', schema: Deposit },
      },
    },
    {
      method: 'POST',
      path: '/v1/deposits/get',
      tag: 'deposits',
      summary: 'Read a deposit',
      description:
        'By its `operationID` alone for the backend that created it (no token, no secret); a request that sends the connection\'s token (and `userSecret`) sees it only as that connection (and user). To anyone else it is 404 `DEPOSIT_NOT_FOUND` (docs/deposits.md, "Whose deposits").',
      security,
      // The backend that created it needs no connection (docs/deposits.md, "Whose deposits").
      securityOptional: true,
      body: { schema: GetDepositRequest, example: { operationID: depositId } },
      responses: { 200: { description: 'The deposit', schema: Deposit } },
    },
    {
      method: 'POST',
      path: '/v1/deposits/answer',
      tag: 'deposits',
      summary: "Answer the bank's question (a one-time password)",
      description:
        "While the deposit is `user_input_required`: each input of its `userInputs` by its `id`, with your `answer` (no create body, no `query`: the question's own are used). The deposit goes back to the step that asked. An input the bank did not ask, or one left out, is 400 naming it; a deposit that waits for no answer is 409 `DEPOSIT_NOT_WAITING`. The same as a repeated create with `userInputs`, which still works.",
      security,
      // The backend that created it needs no connection (docs/deposits.md, "Whose deposits").
      securityOptional: true,
      body: {
        schema: AnswerDepositRequest,
        example: {
          operationID: 'dep_01M812X2Q4VJ6S0B9YF3K8RMHT',
          userInputs: [{ id: 'otp', answer: '123456' }],
        },
      },
      responses: { 200: { description: 'The deposit, back at the step that asked', schema: Deposit } },
    },
    {
      method: 'POST',
      path: '/v1/deposits/list',
      tag: 'deposits',
      summary: "The backend's deposits (or, with its token, a connection's), newest first",
      description:
        "Without a token, every deposit the calling backend created, of every connection; with the connection's token, that connection's (and with `userSecret`, that user's). `status` narrows it; a page asked for one status may hold fewer than `limit` while a `cursor` follows.",
      security,
      // The backend that created it needs no connection (docs/deposits.md, "Whose deposits").
      securityOptional: true,
      body: { schema: ListDepositsRequest, example: { status: 'done', limit: 20 } },
      responses: {
        200: { description: 'A page of deposits, and a cursor while more may follow', schema: DepositList },
      },
    },
    {
      method: 'POST',
      path: '/v1/deposits/cancel',
      tag: 'deposits',
      summary: 'Cancel a deposit before its transfer',
      description:
        'By its `operationID` alone for the backend that created it. A deposit at its transfer, or finished, is 409 `DEPOSIT_NOT_CANCELLABLE`.',
      security,
      // The backend that created it needs no connection (docs/deposits.md, "Whose deposits").
      securityOptional: true,
      body: { schema: CancelDepositRequest, example: { operationID: depositId } },
      responses: { 200: { description: 'The deposit, failed `CANCELLED`', schema: Deposit } },
    },
    {
      method: 'POST',
      path: '/v1/sources/create',
      tag: 'sources',
      summary: "Prepare the user's connection for deposits into a wallet account (at onboarding)",
      description:
        "Answers at once; the bank's metadata, the beneficiary and its cool-down are taken care of in the background, so that every deposit afterwards goes straight to the transfer. Statuses: `initialized`, `user_input_required` (repeat with `userInputs`, as for deposits), `cooling_down` with `readyAt`, `ready`, `failed`. The same `Idempotency-Key` answers the same source (200).",
      security,
      headers: z.object({ 'idempotency-key': IdempotencyKey }),
      body: { schema: CreateSourceRequest, example: { ...credentials, walletAccountID: 'wallet-aed' } },
      responses: {
        202: { description: 'Started', schema: Source },
        200: { description: 'Already started with this key: the source as it stands', schema: Source },
      },
    },
    {
      method: 'POST',
      path: '/v1/sources/get',
      tag: 'sources',
      summary: 'Read a payment source',
      description:
        'Only the connection that created it can read it; to anyone else it is 404 `SOURCE_NOT_FOUND`.',
      security,
      // The backend that created it needs no connection (docs/deposits.md, "Whose deposits").
      securityOptional: true,
      body: { schema: GetSourceRequest, example: { ...credentials, sourceID: sourceId } },
      responses: { 200: { description: 'The source', schema: Source } },
    },
    {
      method: 'POST',
      path: '/v1/sources/list',
      tag: 'sources',
      summary: "The connection's payment sources, newest first",
      security,
      // The backend that created it needs no connection (docs/deposits.md, "Whose deposits").
      securityOptional: true,
      body: { schema: ListSourcesRequest, example: { ...credentials, limit: 20 } },
      responses: {
        200: { description: 'A page of sources, and a cursor while more may follow', schema: SourceList },
      },
    },
    {
      method: 'POST',
      path: '/v1/sources/cancel',
      tag: 'sources',
      summary: 'Cancel a payment source before it is ready',
      description:
        "While it works, waits for an answer or cools down (the user left onboarding, say): failed `CANCELLED`. Deposits that were waiting for its wake-up wait on their own. A ready source is 409 `SOURCE_NOT_CANCELLABLE`; another connection's, 404 `SOURCE_NOT_FOUND`.",
      security,
      // The backend that created it needs no connection (docs/deposits.md, "Whose deposits").
      securityOptional: true,
      body: { schema: CancelSourceRequest, example: { ...credentials, sourceID: sourceId } },
      responses: { 200: { description: 'The source, failed `CANCELLED`', schema: Source } },
    },
    {
      method: 'GET',
      path: '/health',
      tag: 'service',
      summary: 'Health (open, also in AWS)',
      responses: { 200: { description: 'The API answers', schema: Health } },
    },
  ],
};
