/**
 * The sandbox's routes of the `dapi-v2` dialect (docs/sandbox.md "Provider dialects"): the requests as
 * the provider's official SDKs send them, and the answers as their types declare them (docs/provider-v2.md).
 * The two paths both dialects share (the balance and the operation read) are in `sandbox-api.ts`.
 */
import * as z from 'zod';
import { dapiV2Dialect } from '#shared/provider/interface/dialects';
import { AccountsMetadata, ExchangeTokenRequest, OperationStatus } from '#shared/provider/interface/schemas';
import {
  V2AutoflowRequest,
  V2CreateBeneficiaryRequest,
  V2ListBeneficiariesRequest,
  V2MetadataRequest,
  V2TransferRequest,
} from '#shared/sandbox/dialect-v2/requests';
import type { RouteContract } from './openapi.ts';

const credentials = { appSecret: 'sandbox-local-app-secret', userSecret: 'us_2f8a6c1e9b7d4a3f' };
const receiver = {
  swiftCode: 'WALTAEAD',
  name: 'Acme Wallet LLC',
  iban: 'AE070331234567890123456',
  accountNumber: '0331234567890123456',
  country: 'AE',
  address: { line1: 'Wallet Street 1' },
};

const V2UserInput = z.object({
  id: z.string(),
  index: z.number().int(),
  query: z.string(),
  answer: z.string(),
});
const envelope = {
  operationID: z.string(),
  success: z.boolean(),
  status: OperationStatus,
  type: z.string().optional(),
  msg: z.string().optional(),
  userInputs: z.array(V2UserInput).optional(),
  reference: z.string().optional(),
  coolDownPeriod: z.object({ value: z.number().int(), unit: z.string() }).optional(),
};
const V2Metadata = AccountsMetadata.extend({
  transferBounds: z.array(
    z.object({
      minimum: z.number().int(),
      currency: z.object({ code: z.string(), name: z.string() }),
      type: z.string(),
    }),
  ),
  beneficiaryCoolDownPeriod: z.object({ value: z.number().int(), unit: z.string() }),
  transactionRange: z.object({ value: z.number().int(), unit: z.string() }),
});
const V2Listed = z.object({
  id: z.string(),
  name: z.string(),
  accountNumber: z.string(),
  iban: z.string(),
  type: z.string(),
  status: z.enum([
    'approved',
    'rejected',
    'cancelled',
    'waiting_for_confirmation',
    'modified_for_pending_approval',
  ]),
});

const answers = {
  metadata: z.object({ ...envelope, accountsMetadata: V2Metadata.optional() }),
  beneficiaries: z.object({ ...envelope, beneficiaries: z.array(V2Listed).optional() }),
  created: z.object(envelope),
  transfer: z.object(envelope),
};

function operation(
  path: string,
  summary: string,
  request: z.ZodType,
  example: object,
  answer: z.ZodType,
): RouteContract {
  return {
    method: 'POST',
    path,
    tag: 'provider-v2',
    summary,
    security: ['connectionToken'],
    body: { schema: request, example: { ...credentials, ...example } },
    responses: {
      200: {
        description:
          'Answered: `done`, or `user_input_required` (resume with `operationID` and `userInputs`)',
        schema: answer,
      },
      202: {
        description:
          'The bank took longer than the request can wait: `initialized`; read it with `/v2/operation/get`',
        schema: answer,
      },
    },
  };
}

const paths = dapiV2Dialect.paths;

export const sandboxV2Routes: RouteContract[] = [
  {
    method: 'POST',
    path: paths.exchangeToken,
    tag: 'provider-v2',
    summary: "Exchange a connection's access code (v2: with `tokenID`, `userID`, `operationID`)",
    body: {
      schema: ExchangeTokenRequest,
      example: {
        appSecret: credentials.appSecret,
        accessCode: 'ac_7f3e2d1c0b9a8f7e',
        connectionID: 'conn_01M812W7SXHYZAEH7814YWVTV8',
      },
    },
    responses: {
      200: {
        description: 'The access token',
        schema: z.object({
          success: z.literal(true),
          status: z.literal('done'),
          accessToken: z.string(),
          tokenID: z.string(),
          userID: z.string(),
          operationID: z.string(),
        }),
      },
    },
  },
  operation(paths.metadata, "The bank's metadata (v2)", V2MetadataRequest, {}, answers.metadata),
  operation(
    paths.beneficiariesGet,
    "The user's beneficiaries (v2)",
    V2ListBeneficiariesRequest,
    {},
    answers.beneficiaries,
  ),
  operation(
    paths.beneficiariesCreate,
    'Create a beneficiary (v2)',
    V2CreateBeneficiaryRequest,
    { type: 'local', ...receiver },
    answers.created,
  ),
  operation(
    paths.transferCreate,
    'A transfer to `receiverID` (scenario 2: with top-level `name`, `iban`, `accountNumber`), or inline (v2)',
    V2TransferRequest,
    { amount: 250, senderID: 'acc_5d1f0c2b', receiverID: 'ben_01M812W7SXHYZAEH7814YWVTV8' },
    answers.transfer,
  ),
  operation(
    paths.transferAutoflow,
    'A transfer to an inline receiver, `beneficiary` or `Beneficiary`, no `action` (v2)',
    V2AutoflowRequest,
    { amount: 250, senderID: 'acc_5d1f0c2b', Beneficiary: receiver },
    answers.transfer,
  ),
];
