/**
 * The provider's requests, one builder per call, in the dialect the client speaks
 * (`interface/dialects.ts`): each names the call's path, the field its answers name the operation
 * by, the schema its answer is read with, and its body besides the credentials and a question's
 * answers (which `client.ts` adds). In the `spec` dialect every body is what it always was, key for
 * key; in `dapi-v2` it is what the provider's SDKs send (docs/provider-v2.md §2).
 *
 * Money crosses here: callers give integer minor units, the wire carries major-unit numbers.
 */
import type { z } from 'zod';
import { type CurrencyCode, fromMinorUnits } from '#shared/money';
import {
  type DetailField,
  type Dialect,
  type IdField,
  type OperationCall,
  written,
} from '#shared/provider/interface/dialects';
import {
  BalanceResponse,
  CreateBeneficiaryResponse,
  ListBeneficiariesResponse,
  MetadataResponse,
  type OperationResponse,
  TransferResponse,
} from '#shared/provider/interface/responses';
import {
  V2BalanceResponse,
  V2CreateBeneficiaryResponse,
  V2ListBeneficiariesResponse,
  V2MetadataResponse,
  V2TransferResponse,
} from '#shared/provider/interface/responses-v2';
import type {
  AutoflowTransferRequest,
  InlineBeneficiary,
  NewBeneficiary,
} from '#shared/provider/interface/schemas';

export interface TransferOrder {
  amountMinor: number;
  currency: CurrencyCode;
  senderID: string;
}

/**
 * An answer as the client hands it on in either dialect: the spec's fields, its operation named by
 * `jobID` or `operationID` as its dialect names it (the client hands the id on as the answer's `id`).
 */
type Answered<T> = Omit<T, IdField> & Partial<Record<IdField, string | null>>;
export type MetadataAnswer = Answered<MetadataResponse>;
export type BeneficiariesAnswer = Answered<ListBeneficiariesResponse>;
export type CreatedAnswer = Answered<CreateBeneficiaryResponse>;
export type TransferAnswer = Answered<TransferResponse>;
export type BalanceAnswer = Answered<BalanceResponse>;
export type OperationAnswer = Answered<OperationResponse>;

/** Where a call goes and what it sends. */
export interface Target {
  path: string;
  idField: IdField;
  body: Record<string, unknown>;
}

/** A call whose answer is read with `schema`. */
export interface Request<T> extends Target {
  schema: z.ZodType<T>;
}

interface AnswerSchemas {
  metadata: z.ZodType<MetadataAnswer>;
  beneficiaries: z.ZodType<BeneficiariesAnswer>;
  created: z.ZodType<CreatedAnswer>;
  transfer: z.ZodType<TransferAnswer>;
  balance: z.ZodType<BalanceAnswer>;
}

const specAnswers: AnswerSchemas = {
  metadata: MetadataResponse,
  beneficiaries: ListBeneficiariesResponse,
  created: CreateBeneficiaryResponse,
  transfer: TransferResponse,
  balance: BalanceResponse,
};

const v2Answers: AnswerSchemas = {
  metadata: V2MetadataResponse,
  beneficiaries: V2ListBeneficiariesResponse,
  created: V2CreateBeneficiaryResponse,
  transfer: V2TransferResponse,
  balance: V2BalanceResponse,
};

export type Requests = ReturnType<typeof requestsIn>;

/** The requests of `dialect`; `autoflowAction` names the inline transfer's flow where it sends one. */
export function requestsIn(dialect: Dialect, autoflowAction: string) {
  const answers = dialect.name === 'spec' ? specAnswers : v2Answers;
  const sync = (value: boolean) => (dialect.sendsSync ? { sync: value } : {});
  const request = <T>(
    call: OperationCall,
    schema: z.ZodType<T>,
    body: Record<string, unknown>,
  ): Request<T> => ({
    path: dialect.paths[call],
    idField: dialect.idFields[call],
    schema,
    body,
  });

  return {
    metadata: () => request('metadata', answers.metadata, sync(true)),

    beneficiariesGet: () => request('beneficiariesGet', answers.beneficiaries, sync(true)),

    beneficiariesCreate: (beneficiary: NewBeneficiary) =>
      request('beneficiariesCreate', answers.created, { ...sync(true), ...written(dialect, beneficiary) }),

    /** To a registered beneficiary, with scenario 2's details (`beneficiary`) when the bank demands them. */
    transferCreate(
      order: TransferOrder & { receiverID: string; beneficiary?: InlineBeneficiary },
      syncs: boolean,
    ) {
      const { amountMinor, currency, ...rest } = order;
      const amount = fromMinorUnits(amountMinor, currency);
      const details = dialect.scenario2Details;
      if (details.form === 'nested') {
        return request('transferCreate', answers.transfer, { ...sync(syncs), amount, ...rest });
      }
      const { beneficiary, ...receiver } = rest;
      const fields = beneficiary ? written(dialect, pick(beneficiary, details.fields)) : {};
      return request('transferCreate', answers.transfer, { ...sync(syncs), amount, ...receiver, ...fields });
    },

    /** The receiver inline, for banks that take no beneficiaries. */
    transferAutoflow(order: TransferOrder & { beneficiary: InlineBeneficiary; action?: string }) {
      const { amountMinor, currency, action = autoflowAction, ...rest } = order;
      const amount = fromMinorUnits(amountMinor, currency);
      if (dialect.inlineReceiver.action === 'required') {
        const body: Omit<AutoflowTransferRequest, 'appSecret' | 'userSecret' | 'sync'> = {
          amount,
          action,
          ...rest,
        };
        return request('transferAutoflow', answers.transfer, body);
      }
      const { beneficiary, ...sender } = rest;
      const receiver = { [dialect.inlineReceiver.key]: written(dialect, beneficiary) };
      return request('transferAutoflow', answers.transfer, { amount, ...sender, ...receiver });
    },

    balance: (cardID: string) => request('balance', answers.balance, { cardID }),

    /** The read of an operation, by the id it was named by (in `dapi-v2` always `operationID`). */
    operationGet(id: { operationID: string } | { jobID: string }): Target & { operationId: string } {
      const [named, operationId] =
        'operationID' in id ? ['operationID' as const, id.operationID] : ['jobID' as const, id.jobID];
      const idField = dialect.operationReadIds.includes(named) ? named : 'operationID';
      return { path: dialect.paths.operationGet, idField, body: { [idField]: operationId }, operationId };
    },
  };
}

function pick(beneficiary: InlineBeneficiary, fields: readonly DetailField[]) {
  return Object.fromEntries(fields.map((field) => [field, beneficiary[field]]));
}
