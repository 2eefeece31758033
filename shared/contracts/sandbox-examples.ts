/**
 * The sandbox API's answers as examples (`examples.ts` puts them beside the deposits' and the
 * operator's): the spec dialect's envelopes and the v2 dialect's, by route and status.
 */
import { sandboxBanks } from '#shared/sandbox/catalog';
import { at, otp, requestId, transferReference } from './example-values.ts';

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

/** The sandbox's answers: route, then status. */
export const sandboxExamples = {
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
};

/** The sandbox's failed envelope. */
export const sandboxFailed = {
  jobID: null,
  operationID: null,
  success: false,
  status: 'failed',
  type: 'INVALID_ACCOUNT_ID',
  msg: 'Invalid account ID',
  requestId,
};
