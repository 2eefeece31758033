/**
 * What each documented answer looks like, as the service gives it: one realistic example per route
 * and status, and one failed envelope per API (`openApiDocument` puts them in the documents, where
 * the reference page shows them instead of values it would make up from the schemas: `"string"`,
 * dates drawn from a pattern). Keyed by route (`POST /v1/deposits/get`) and status, beside the
 * contracts rather than in them; `test/unit/openapi-examples.test.ts` holds every documented answer
 * to an example of its schema, and every example to a documented answer.
 */
import { sandboxBanks } from '#shared/sandbox/catalog';

/** One morning's deposit, as docs/deposits.md shows it. */
const at = (time: string) => `2026-11-22T07:${time}Z`;
const depositId = 'dep_01M812W7SXHYZAEH7814YWVTV8';
const sourceId = 'src_01M812W7SXHYZAEH7814YWVTV9';
const transferReference = 'TRF01M812WC1HP7KNPHW3G19947XC';
const requestId = '9b2720b0-da36-441e-bcb7-84d7d747db64';
const bankName = 'Sandbox Quick Cool-down Bank';
const otp = {
  id: 'otp',
  index: 0,
  query: 'Enter the one-time password sent to your registered mobile number',
  answer: '',
};

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

/** A provider operation's envelope, as the spec answers (v1 dialect: `jobID` beside the operation). */
const envelope = (fields: Record<string, unknown>) => ({
  jobID: 'job_01M812W7XQ2P4H6J8K0M3N5R7T',
  success: true,
  status: 'done',
  ...fields,
});
const v2 = (fields: Record<string, unknown>) => ({
  operationID: 'op_01M812W7XQ2P4H6J8K0M3N5R7T',
  success: true,
  status: 'done',
  ...fields,
});
const bank =
  sandboxBanks.find((candidate) => candidate.bankId === 'SANDBOX_COOLDOWN_FAST') ?? sandboxBanks[0];
const accountsMetadata = bank?.accountsMetadata;
/** The v2 dialect's metadata: whole numbers only, as the provider's SDKs declare them. */
const accountsMetadataV2 = accountsMetadata && {
  ...accountsMetadata,
  transferBounds: accountsMetadata.transferBounds.map((bound) => ({
    ...bound,
    minimum: Math.ceil(bound.minimum),
  })),
  beneficiaryCoolDownPeriod: { value: 1, unit: 'hrs' },
};
const beneficiary = {
  id: 'ben_01M812W8B2K6Z3C5X7V9N1M4QP',
  name: 'Wallet Co. Client Money AED',
  accountNumber: '1012345678',
  type: 'local',
  status: 'approved',
};
const asked = { status: 'user_input_required', userInputs: [otp] };
const started = { status: 'initialized' };
const transfer = { operationID: 'op_01M812WC0V9P3D7J2Q6N4R8STA', reference: transferReference };
const card = {
  availableBalance: 8_250.5,
  outstandingBalance: 1_749.5,
  amountDue: 250,
  cardNumber: '**** **** **** 4421',
  dueDate: '2026-12-05',
  currency: { code: 'AED', name: 'UAE Dirham' },
};
const user = {
  connectionID: 'conn_01M812W5K9D2R4T6Y8U0I2O4PA',
  accounts: [{ id: 'acc_01M812W5KA3S5D7F9G1H3J5K7L', currency: 'AED', balance: 100_000 }],
  cards: [{ id: 'card_01M812W5KB4T6Y8U0I2O4P6A8S' }],
};
const faults = [{ path: '/v1/payment/transfer/create', outcome: 'timeout', phase: 'after', times: 1 }];

/**
 * The deposit's webhook deliveries: the cool-down heard at once; its done refused twice (the
 * receiver was redeploying), then taken, and resent by an operator who was asked about it.
 */
const deliveries = {
  operationID: depositId,
  now: at('52:10.044'),
  deliveries: [
    {
      eventId: `${depositId}.v3`,
      type: 'deposit.cooling_down',
      occurredAt: at('35:07.053'),
      state: 'delivered',
      attempts: 1,
      firstTriedAt: at('35:07.180'),
      lastTriedAt: at('35:07.180'),
      deliveredAt: at('35:07.180'),
      tries: [{ at: at('35:07.180'), outcome: 'delivered', status: 200, tookMs: 84 }],
      resends: 0,
    },
    {
      eventId: `${depositId}.v6`,
      type: 'deposit.done',
      occurredAt: at('35:11.204'),
      state: 'delivered',
      attempts: 4,
      firstTriedAt: at('35:11.310'),
      lastTriedAt: at('51:58.412'),
      deliveredAt: at('35:17.655'),
      tries: [
        { at: at('35:11.310'), outcome: 'failed', status: 503, error: 'webhook answered 503', tookMs: 41 },
        { at: at('35:13.502'), outcome: 'failed', status: 503, error: 'webhook answered 503', tookMs: 38 },
        { at: at('35:17.655'), outcome: 'delivered', status: 200, tookMs: 97 },
        { at: at('51:58.412'), outcome: 'delivered', status: 200, tookMs: 88 },
      ],
      resends: 1,
      lastResend: { by: 'arn:aws:iam::123456789012:user/ops-amira', at: at('51:58.207') },
    },
  ],
};

/** A morning's counts, the deposits created hour by hour, and how long the done ones took. */
const stats = {
  now: at('52:10.044'),
  counts: {
    initialized: { count: 4, capped: false },
    user_input_required: { count: 1, capped: false },
    done: { count: 57, capped: false },
    failed: { count: 3, capped: false },
    outcome_unknown: { count: 1, capped: false },
  },
  overTime: {
    from: '2026-11-22T00:00:00.000Z',
    to: '2026-11-23T00:00:00.000Z',
    binSeconds: 3600,
    bins: [
      {
        from: '2026-11-22T06:00:00.000Z',
        initialized: 0,
        user_input_required: 0,
        done: 21,
        failed: 1,
        outcome_unknown: 0,
      },
      {
        from: '2026-11-22T07:00:00.000Z',
        initialized: 4,
        user_input_required: 1,
        done: 36,
        failed: 2,
        outcome_unknown: 1,
      },
    ],
  },
  timeToDone: {
    deposits: 57,
    total: { medianSeconds: 4.4, p90Seconds: 86_412.3 },
    steps: [
      { step: 'resolve-bank', deposits: 57, medianSeconds: 0.1, p90Seconds: 0.3 },
      { step: 'ensure-beneficiary', deposits: 57, medianSeconds: 0.1, p90Seconds: 0.4 },
      { step: 'wait-cooldown', deposits: 12, medianSeconds: 3.6, p90Seconds: 86_400 },
      { step: 'transfer', deposits: 57, medianSeconds: 0.2, p90Seconds: 8.1 },
    ],
  },
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
  sandbox: {
    'POST /v1/auth/ExchangeToken': {
      200: {
        success: true,
        status: 'done',
        accessToken: 'conn_01M812W5K9D2R4T6Y8U0I2O4PA.at_Q2hlY2tpbmdBY2NvdW50',
      },
    },
    'POST /v2/auth/ExchangeToken': {
      200: {
        success: true,
        status: 'done',
        accessToken: 'conn_01M812W5K9D2R4T6Y8U0I2O4PA.at_Q2hlY2tpbmdBY2NvdW50',
        tokenID: 'tok_01M812W6A2S4D6F8G0H2J4K6L8',
        userID: 'conn_01M812W5K9D2R4T6Y8U0I2O4PA',
        operationID: 'op_01M812W6A3S5D7F9G1H3J5K7L9',
      },
    },
    'POST /v1/metadata/accounts/get': { 200: envelope({ accountsMetadata }), 202: envelope(started) },
    'POST /v2/metadata/accounts/get': { 200: v2({ accountsMetadata: accountsMetadataV2 }), 202: v2(started) },
    'POST /v1/payment/beneficiaries/get': {
      200: envelope({ beneficiaries: [beneficiary] }),
      202: envelope(started),
    },
    'POST /v2/payment/beneficiaries/get': {
      200: v2({ beneficiaries: [{ ...beneficiary, iban: 'AE070331234567890123456' }] }),
      202: v2(started),
    },
    'POST /v1/payment/beneficiaries/create': { 200: envelope({}), 202: envelope(started) },
    'POST /v2/payment/beneficiaries/create': { 200: v2({}), 202: v2(started) },
    'POST /v1/payment/transfer/create': {
      200: { ...transfer, success: true, status: 'done' },
      202: { operationID: transfer.operationID, success: true, ...started },
    },
    'POST /v2/payment/transfer/create': { 200: v2(transfer), 202: v2({ ...started }) },
    'POST /v1/payment/transfer/autoflow': {
      200: { operationID: transfer.operationID, success: true, ...asked },
      202: { operationID: transfer.operationID, success: true, ...started },
    },
    'POST /v2/payment/transfer/autoflow': { 200: v2(transfer), 202: v2(started) },
    'POST /v2/data/balance/get': { 200: v2({ balance: card }), 202: v2(started) },
    'POST /v2/operation/get': { 200: envelope({ operationID: transfer.operationID, ...asked }) },
    'POST /v1/operation/get': {
      200: envelope({ operationID: transfer.operationID, reference: transferReference }),
    },
    'GET /sandbox/banks': {
      200: {
        banks: sandboxBanks.slice(0, 2).map(({ bankId, accountsMetadata }) => ({ bankId, accountsMetadata })),
      },
    },
    'POST /sandbox/applications': {
      201: { appSecret: 'app_Zm9yIHlvdXIgb3duIHRlc3Rz', expiresAt: '2026-11-23T07:35:06.813Z' },
    },
    'POST /sandbox/users': {
      201: { ...user, accessCode: 'ac_7f3e2d1c0b9a8f7e6d5c', userSecret: 'us_2f8a6c1e9b7d4a3f5e1c' },
    },
    'POST /sandbox/users/get': {
      200: {
        ...user,
        bankId: 'SANDBOX_BENEFICIARY',
        accounts: [{ ...user.accounts[0], balance: 99_849.75 }],
        transfers: [
          {
            ...transfer,
            senderID: 'acc_01M812W5KA3S5D7F9G1H3J5K7L',
            amount: 150.25,
            currency: 'AED',
            type: 'local',
            receiver: {
              beneficiaryID: beneficiary.id,
              name: beneficiary.name,
              iban: 'AE070331234567890123456',
              swiftCode: 'WALTAEAD',
            },
            createdAt: at('35:11.130'),
          },
        ],
        faults: [],
        beneficiaryCreations: [
          {
            jobID: 'job_01M812W8B0H2J4K6L8M0N2P4Q6',
            at: at('35:06.990'),
            iban: 'AE070331234567890123456',
            accountNumber: '1012345678',
            outcome: 'created',
            beneficiaryID: beneficiary.id,
          },
        ],
      },
    },
    'POST /sandbox/faults': { 200: { connectionID: user.connectionID, faults } },
    'GET /health': { 200: { status: 'ok' } },
  },
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
  sandbox: {
    jobID: null,
    operationID: null,
    success: false,
    status: 'failed',
    type: 'INVALID_ACCOUNT_ID',
    msg: 'Invalid account ID',
    requestId,
  },
};
