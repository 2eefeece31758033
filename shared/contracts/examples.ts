/**
 * What each documented answer looks like, as the service gives it: one realistic example per route
 * and status, and one failed envelope per API (`openApiDocument` puts them in the documents, where
 * the reference page shows them instead of values it would make up from the schemas: `"string"`,
 * dates drawn from a pattern). Keyed by route (`POST /v1/deposits/get`) and status, beside the
 * contracts rather than in them; `test/unit/openapi-examples.test.ts` holds every documented answer
 * to an example of its schema, and every example to a documented answer.
 */
import { at, depositId, otp, requestId, transferReference } from './example-values.ts';
import { deliveries, pendingResolution, stats } from './operator-examples.ts';
import { sandboxExamples, sandboxFailed } from './sandbox-examples.ts';

/** One morning's deposit, as docs/deposits.md shows it. */
const sourceId = 'src_01M812W7SXHYZAEH7814YWVTV9';
const bankName = 'Sandbox Quick Cool-down Bank';

const depositBase = {
  operationID: depositId,
  amount: 150.25,
  currency: 'AED',
  walletAccountID: 'wallet-aed',
  senderID: 'acc_5d1f0c2b',
  clientReference: 'topup-7741',
  metadata: { walletUser: 'u-42' },
  createdAt: at('35:06.813'),
};
const history = {
  started: { step: 'resolve-bank', status: 'initialized', at: at('35:06.813') },
  bank: { step: 'ensure-beneficiary', status: 'initialized', at: at('35:06.920'), note: `bank: ${bankName}` },
  cooling: {
    step: 'wait-cooldown',
    status: 'initialized',
    at: at('35:07.053'),
    note: 'cooling down until 2026-11-22T07:35:10.647Z',
  },
  transfer: { step: 'transfer', status: 'initialized', at: at('35:11.095'), note: 'cool-down over' },
  done: { step: 'completed', status: 'done', at: at('35:11.204') },
};

/** Just started: the steps run in the background. */
const depositStarted = {
  ...depositBase,
  success: true,
  status: 'initialized',
  step: 'resolve-bank',
  history: [history.started],
  updatedAt: at('35:06.813'),
};
/** Done, its whole way there. */
const depositDone = {
  ...depositBase,
  success: true,
  status: 'done',
  step: 'completed',
  reference: transferReference,
  history: Object.values(history),
  updatedAt: at('35:11.204'),
};
/** Cancelled while it waited for the bank's cool-down. */
const depositCancelled = {
  ...depositBase,
  success: false,
  status: 'failed',
  step: 'wait-cooldown',
  type: 'CANCELLED',
  msg: 'The deposit was cancelled before its transfer',
  history: [
    history.started,
    history.bank,
    history.cooling,
    { step: 'wait-cooldown', status: 'failed', at: at('35:08.412'), note: 'cancelled by its owner' },
  ],
  updatedAt: at('35:08.412'),
};
/** Waiting for the user's one-time password. */
const depositAsking = {
  ...depositBase,
  operationID: 'dep_01M812X2Q4VJ6S0B9YF3K8RMHT',
  clientReference: 'topup-7742',
  amount: 250,
  success: true,
  status: 'user_input_required',
  step: 'transfer',
  userInputs: [otp],
  inputExpiresAt: at('41:02.517'),
  history: [
    {
      step: 'transfer',
      status: 'initialized',
      at: at('36:02.410'),
      note: `bank and beneficiary remembered: ${bankName}`,
    },
    { step: 'transfer', status: 'user_input_required', at: at('36:02.517') },
  ],
  createdAt: at('36:02.410'),
  updatedAt: at('36:02.517'),
};
/** The one-time password answered (`POST /v1/deposits/answer`): back at the transfer that asked. */
const depositAnswered = {
  ...depositAsking,
  status: 'initialized',
  userInputs: undefined,
  inputExpiresAt: undefined,
  history: [
    ...depositAsking.history,
    { step: 'transfer', status: 'initialized', at: at('36:40.003'), note: 'input answered' },
  ],
  updatedAt: at('36:40.003'),
};

const sourceBase = { sourceID: sourceId, walletAccountID: 'wallet-aed', createdAt: at('30:00.102') };
const sourceStarted = {
  ...sourceBase,
  success: true,
  status: 'initialized',
  history: [{ step: 'resolve-bank', status: 'initialized', at: at('30:00.102') }],
  updatedAt: at('30:00.102'),
};
const sourceCooling = {
  ...sourceBase,
  success: true,
  status: 'cooling_down',
  bankName,
  readyAt: at('30:04.388'),
  history: [
    { step: 'resolve-bank', status: 'initialized', at: at('30:00.102') },
    { step: 'ensure-beneficiary', status: 'initialized', at: at('30:00.233'), note: `bank: ${bankName}` },
    {
      step: 'wait-cooldown',
      status: 'cooling_down',
      at: at('30:00.788'),
      note: 'cooling down until 2026-11-22T07:30:04.388Z',
    },
  ],
  updatedAt: at('30:00.788'),
};
const sourceReady = {
  ...sourceCooling,
  status: 'ready',
  readyAt: undefined,
  history: [
    ...sourceCooling.history,
    { step: 'completed', status: 'ready', at: at('30:04.902'), note: 'cool-down over' },
  ],
  updatedAt: at('30:04.902'),
};
const sourceCancelled = {
  ...sourceCooling,
  success: false,
  status: 'failed',
  readyAt: undefined,
  type: 'CANCELLED',
  msg: 'The source was cancelled before it was ready',
  history: [
    ...sourceCooling.history,
    { step: 'wait-cooldown', status: 'failed', at: at('30:02.140'), note: 'cancelled by its owner' },
  ],
  updatedAt: at('30:02.140'),
};

/** The operator's view: the owner's, and what the workflow keeps about it. */
const operatorDeposit = {
  ...depositDone,
  version: 6,
  connection: 'c3f1a9e2',
  bankName,
  retries: 0,
  transferAttempt: { at: at('35:11.130'), answering: false },
  transferOperationId: 'op_01M812WC0V9P3D7J2Q6N4R8STA',
  beneficiaryId: 'ben_01M812W8B2K6Z3C5X7V9N1M4QP',
};
const operatorStuck = {
  ...depositBase,
  operationID: 'dep_01M812Y5N7C3Q9W2E4R6T8Y0UB',
  clientReference: 'topup-7698',
  metadata: { walletUser: 'u-17', channel: 'android' },
  success: false,
  status: 'failed',
  step: 'transfer',
  type: 'TRANSFER_OUTCOME_UNKNOWN',
  msg: 'The transfer was sent and its outcome could not be read: an operator resolves it',
  history: [
    {
      step: 'transfer',
      status: 'initialized',
      at: at('40:01.004'),
      note: `bank and beneficiary remembered: ${bankName}`,
    },
    {
      step: 'transfer',
      status: 'failed',
      at: at('40:31.870'),
      note: 'no answer to the transfer after 3 tries',
    },
  ],
  createdAt: at('40:01.004'),
  updatedAt: at('40:31.870'),
  version: 4,
  connection: '7b20d4e6',
  bankName,
  retries: 3,
  transferAttempt: { at: at('40:01.120'), answering: false },
};

/** A deposit's or source's fields in the order the API writes them; the operator's own after. */
const fieldOrder = [
  'operationID',
  'sourceID',
  'success',
  'status',
  'step',
  'amount',
  'currency',
  'walletAccountID',
  'senderID',
  'clientReference',
  'metadata',
  'bankName',
  'resumesAt',
  'readyAt',
  'userInputs',
  'inputExpiresAt',
  'reference',
  'type',
  'msg',
  'history',
  'createdAt',
  'updatedAt',
];
const rank = (key: string) => (fieldOrder.includes(key) ? fieldOrder.indexOf(key) : fieldOrder.length);

/**
 * As the answer goes over the wire: JSON, so a field left `undefined` above is no field at all, and
 * a deposit's fields in their order.
 */
const asSent = <T>(examples: T): T =>
  JSON.parse(JSON.stringify(examples), (_key, value: unknown) =>
    value && typeof value === 'object' && !Array.isArray(value) && 'history' in value
      ? Object.fromEntries(Object.entries(value).sort(([a], [b]) => rank(a) - rank(b)))
      : value,
  ) as T;

/** The examples of each API's answers: route, then status. */
export const responseExamples: Record<string, Record<string, Record<number, unknown>>> = asSent({
  deposits: {
    'POST /v1/deposits/create': { 202: depositStarted, 200: depositAsking },
    'POST /v1/deposits/get': { 200: depositDone },
    'POST /v1/deposits/answer': { 200: depositAnswered },
    'POST /v1/deposits/list': {
      200: { deposits: [depositAsking, depositDone], cursor: 'eyJjcmVhdGVkQXQiOjE3OTU4NTc3MDY4MTN9' },
    },
    'POST /v1/deposits/cancel': { 200: depositCancelled },
    'POST /v1/sources/create': { 202: sourceStarted, 200: sourceCooling },
    'POST /v1/sources/get': { 200: sourceReady },
    'POST /v1/sources/list': { 200: { sources: [sourceReady] } },
    'POST /v1/sources/cancel': { 200: sourceCancelled },
    'GET /health': { 200: { status: 'ok' } },
  },
  operator: {
    'POST /v1/ops/deposits/list': {
      200: {
        deposits: [operatorStuck],
        cursor: 'eyJzdGF0dXMiOiJvdXRjb21lX3Vua25vd24ifQ',
        now: at('52:10.044'),
      },
    },
    'POST /v1/ops/deposits/get': { 200: operatorDeposit },
    'POST /v1/ops/deposits/resolve': {
      200: {
        ...operatorStuck,
        success: true,
        status: 'done',
        step: 'completed',
        type: undefined,
        msg: undefined,
        reference: transferReference,
        version: 5,
        resolution: {
          outcome: 'done',
          by: 'arn:aws:iam::123456789012:user/ops-amira',
          reason: 'Bank statement shows the transfer on 22 Nov',
          at: at('52:40.318'),
        },
        history: [
          ...operatorStuck.history,
          { step: 'completed', status: 'done', at: at('52:40.318'), note: 'resolved by an operator' },
        ],
        updatedAt: at('52:40.318'),
      },
      202: { ...operatorStuck, version: 5, pendingResolution, updatedAt: at('52:40.318') },
    },
    'POST /v1/ops/deposits/cancel': {
      200: { ...depositCancelled, version: 5, connection: 'c3f1a9e2', bankName, retries: 0 },
    },
    'POST /v1/ops/deposits/redrive': {
      200: { operationID: depositId, step: 'ensure-beneficiary', version: 3, redriven: true },
    },
    'POST /v1/ops/deposits/deliveries': { 200: deliveries },
    'POST /v1/ops/deposits/resend': {
      200: { operationID: depositId, eventId: `${depositId}.v6`, resent: true, resends: 1 },
    },
    'POST /v1/ops/deposits/stats': { 200: stats },
    'POST /v1/ops/queues': {
      200: {
        queues: [
          {
            name: 'transfer',
            visible: 2,
            inFlight: 1,
            delayed: 0,
            dlq: { name: 'transfer-dlq', visible: 0 },
          },
          { name: 'notify', visible: 0, inFlight: 0, delayed: 3, dlq: { name: 'notify-dlq', visible: 1 } },
        ],
      },
    },
  },
  sandbox: sandboxExamples,
});

/** Each API's failed envelope, as a refusal looks. */
export const failedExamples: Record<string, unknown> = {
  deposits: {
    success: false,
    status: 'failed',
    type: 'DEPOSIT_NOT_FOUND',
    msg: `No deposit ${depositId}`,
    requestId,
  },
  operator: {
    success: false,
    status: 'failed',
    type: 'DEPOSIT_NOT_RESOLVABLE',
    msg: 'Only a deposit whose transfer outcome is unknown can be resolved',
    requestId,
  },
  sandbox: sandboxFailed,
};
