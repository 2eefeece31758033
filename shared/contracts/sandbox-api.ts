/**
 * The provider sandbox's contract (see `openapi.ts`): the provider interface of the spec, and the
 * sandbox's own administration (`/sandbox/...`).
 */
import * as z from 'zod';
import { Health } from '#shared/contracts/deposits-schemas';
import {
  BalanceResponse,
  CreateBeneficiaryResponse,
  ExchangeTokenResponse,
  ListBeneficiariesResponse,
  MetadataResponse,
  OperationResponse,
  SandboxBanksResponse,
  TransferResponse,
} from '#shared/provider/interface/responses';
import {
  AutoflowTransferRequest,
  CardBalance,
  CreateBeneficiaryRequest,
  Currency,
  ExchangeTokenRequest,
  ListBeneficiariesRequest,
  MetadataRequest,
  OperationGetRequest,
  TransferRequest,
} from '#shared/provider/interface/schemas';
import {
  CreateApplicationResponse,
  CreateSandboxUserRequest,
  CreateSandboxUserResponse,
  SandboxUserRequest,
  SandboxUserResponse,
  SetFaultsRequest,
  SetFaultsResponse,
} from '#shared/sandbox/admin-schemas';
import { BalanceByRequest } from '#shared/sandbox/operations/account-balance';
import { type ApiContract, connectionBearer, type RouteContract } from './openapi.ts';
import { sandboxV2Routes } from './sandbox-v2-api.ts';

/** Both dialects' balance: a card's (`cardID`), or an account's (`accountID`, as the SDKs ask it). */
const BalanceByResponse = BalanceResponse.extend({
  balance: z
    .union([CardBalance, z.object({ amount: z.number(), currency: Currency, accountNumber: z.string() })])
    .nullish(),
});

const appSecret = 'sandbox-local-app-secret';
const credentials = { appSecret, userSecret: 'us_2f8a6c1e9b7d4a3f' };
const connectionID = 'conn_01M812W7SXHYZAEH7814YWVTV8';
const wallet = {
  swiftCode: 'WALTAEAD',
  bankName: 'Wallet Bank',
  name: 'Acme Wallet LLC',
  iban: 'AE070331234567890123456',
  accountNumber: '0331234567890123456',
  branchName: 'Head Office',
  branchAddress: 'Wallet Street 1, Dubai',
  address: { line1: 'Wallet Street 1', line2: 'Downtown', line3: 'Dubai' },
};

/** A provider operation: bearer token, its request, 200 answered (done, user input) or 202 (`sync: false`). */
function operation(
  path: string,
  summary: string,
  request: z.ZodType,
  example: Record<string, unknown>,
  answer: z.ZodType,
): RouteContract {
  return {
    method: 'POST',
    path,
    tag: 'provider',
    summary,
    security: ['connectionToken'],
    body: { schema: request, example: { ...credentials, ...example } },
    responses: {
      200: { description: 'Answered: `done`, or `user_input_required` (answer with rule 1)', schema: answer },
      202: { description: '`sync: false`: `initialized`; read it with `/v2/operation/get`', schema: answer },
    },
  };
}

/** The operation read, at `path`: bearer token, the secrets and one id, the operation as it stands. */
function operationRead(path: string, summary: string, description: string): RouteContract {
  return {
    method: 'POST',
    path,
    tag: 'provider',
    summary,
    description,
    security: ['connectionToken'],
    body: {
      schema: OperationGetRequest,
      example: { ...credentials, jobID: 'job_01M812W7SXHYZAEH7814YWVTV8' },
    },
    responses: { 200: { description: 'The operation as it stands', schema: OperationResponse } },
  };
}

export const sandboxContract: ApiContract = {
  api: 'sandbox',
  title: 'Provider sandbox',
  description:
    'The provider interface of the specification (bank-data-and-payments-service.md) over simulated banks, and the sandbox\'s own administration: applications, test users, fault rules. A request may also carry `X-Sandbox-Fault`, `X-Sandbox-Fault-Status`, `X-Sandbox-Fault-Phase`, `X-Sandbox-Fault-Type`, `X-Sandbox-Retry-After-Seconds`, `X-Sandbox-Names-Operation`, `X-Sandbox-Latency-Ms` and `X-Sandbox-Timeout-Ms` headers: a fault for that one request (docs/sandbox.md, "Faults").',
  tags: [
    { name: 'provider', description: 'The provider interface' },
    { name: 'provider-v2', description: "The provider's `dapi-v2` dialect, as its official SDKs send it" },
    { name: 'sandbox', description: "The sandbox's administration" },
    { name: 'service', description: 'Health' },
  ],
  securitySchemes: { connectionToken: connectionBearer },
  routes: [
    {
      method: 'POST',
      path: '/v1/auth/ExchangeToken',
      tag: 'provider',
      summary: "Exchange a connection's access code for its permanent access token",
      body: {
        schema: ExchangeTokenRequest,
        example: { appSecret, accessCode: 'ac_7f3e2d1c0b9a8f7e', connectionID },
      },
      responses: { 200: { description: 'The access token', schema: ExchangeTokenResponse } },
    },
    operation(
      '/v1/metadata/accounts/get',
      "The bank's metadata",
      MetadataRequest,
      { sync: true },
      MetadataResponse,
    ),
    operation(
      '/v1/payment/beneficiaries/get',
      "The user's beneficiaries",
      ListBeneficiariesRequest,
      { sync: true },
      ListBeneficiariesResponse,
    ),
    operation(
      '/v1/payment/beneficiaries/create',
      'Create a beneficiary',
      CreateBeneficiaryRequest,
      { sync: true, type: 'local', country: 'United Arab Emirates', ...wallet },
      CreateBeneficiaryResponse,
    ),
    operation(
      '/v1/payment/transfer/create',
      'A transfer: to a beneficiary (`receiverID`), or to an inline receiver (`action` and `beneficiary`)',
      TransferRequest,
      { sync: true, amount: 250, senderID: 'acc_5d1f0c2b', receiverID: 'ben_01M812W7SXHYZAEH7814YWVTV8' },
      TransferResponse,
    ),
    operation(
      '/v1/payment/transfer/autoflow',
      'A transfer to an inline receiver',
      AutoflowTransferRequest,
      { amount: 250, senderID: 'acc_5d1f0c2b', action: 'deposit', beneficiary: { ...wallet, country: 'AE' } },
      TransferResponse,
    ),
    operation(
      '/v2/data/balance/get',
      "A card's balance (`cardID`), or an account's (`accountID`): the same in both dialects",
      BalanceByRequest,
      { cardID: 'card_3a9c7e5b' },
      BalanceByResponse,
    ),
    operationRead(
      '/v2/operation/get',
      'Read an operation (`operationID` or `jobID`)',
      "The spec shows no read of an operation; this is the path the provider's public documentation names.",
    ),
    operationRead(
      '/v1/operation/get',
      'Alias of `/v2/operation/get`',
      "The sandbox's first path for the operation read, kept for callers that use it: the same request and answers as `/v2/operation/get`.",
    ),
    ...sandboxV2Routes,
    {
      method: 'GET',
      path: '/sandbox/banks',
      tag: 'sandbox',
      summary: "The catalog's banks and their metadata",
      responses: { 200: { description: 'The banks', schema: SandboxBanksResponse } },
    },
    {
      method: 'POST',
      path: '/sandbox/applications',
      tag: 'sandbox',
      summary: 'A new application and its secret (30 days)',
      responses: { 201: { description: 'The application', schema: CreateApplicationResponse } },
    },
    {
      method: 'POST',
      path: '/sandbox/users',
      tag: 'sandbox',
      summary: 'A new test user on a bank of the catalog: its connection, access code, accounts and cards',
      body: {
        schema: CreateSandboxUserRequest,
        example: { appSecret, bankId: 'SANDBOX_BENEFICIARY', balance: 100_000 },
      },
      responses: { 201: { description: 'The user', schema: CreateSandboxUserResponse } },
    },
    {
      method: 'POST',
      path: '/sandbox/users/get',
      tag: 'sandbox',
      summary: "A test user's accounts and transfers as the sandbox holds them",
      body: { schema: SandboxUserRequest, example: { appSecret, connectionID } },
      responses: { 200: { description: 'The user', schema: SandboxUserResponse } },
    },
    {
      method: 'POST',
      path: '/sandbox/faults',
      tag: 'sandbox',
      summary: "Replace a test user's fault rules",
      body: {
        schema: SetFaultsRequest,
        example: {
          appSecret,
          connectionID,
          faults: [{ path: '/v1/payment/transfer/create', outcome: 'timeout', phase: 'after', times: 1 }],
        },
      },
      responses: { 200: { description: 'The rules now set', schema: SetFaultsResponse } },
    },
    {
      method: 'GET',
      path: '/health',
      tag: 'service',
      summary: 'Health',
      responses: { 200: { description: 'The API answers', schema: Health } },
    },
  ],
};
