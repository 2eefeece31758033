/**
 * Operation records and the envelopes they answer with: the fingerprint of a request (a repeated request
 * must match it), and what an operation answers when read at a given
 * time: `initialized` until an asynchronous one completes, `USER_INPUT_EXPIRED` once a wait for input
 * has passed its time, else the envelope it recorded.
 */

import { type EnvelopeError, ProviderError } from '#shared/provider/interface/errors';
import { digest } from '#shared/secrets';
import type { HttpAnswer } from './answer.ts';
import type { Envelope, OperationRecord } from './store.ts';

/** The name of an operation's id: `jobID` (metadata, beneficiaries) or `operationID` (transfers, balance). */
export type IdField = 'jobID' | 'operationID';

/** Request fields that do not belong to what an operation asks the bank to do. */
const notFingerprinted = new Set(['appSecret', 'userSecret', 'sync', 'userInputs', 'jobID', 'operationID']);

/** Digest of what a request asks the bank to do, whatever the order of its fields. */
export function fingerprint(request: object): string {
  const entries = Object.entries(request).filter(([key]) => !notFingerprinted.has(key));
  return digest(canonicalJson(Object.fromEntries(entries)));
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const keys = Object.keys(value).sort();
    const record = value as Record<string, unknown>;
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(record[key])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** The failed envelope of an operation, carrying its id. */
export function failedEnvelope(idField: IdField, id: string, error: EnvelopeError): Envelope {
  return {
    [idField]: id,
    success: false,
    status: 'failed',
    type: error.type,
    msg: error.message,
    ...(error.details ? { details: error.details } : {}),
  };
}

/** The answer to an operation sent with `sync: false`: accepted, to be polled. */
/**
 * What a request is answered: the operation's envelope when sent with `sync: true`, or when the bank
 * carried it out within the request (no delay: nothing in progress to report); `initialized` else.
 */
export function answerOf(operation: OperationRecord, sync: boolean, idField: IdField): HttpAnswer {
  const carriedOut = operation.completesAt <= operation.createdAt;
  if (sync || carriedOut) return { status: operation.httpStatus, body: operation.response as Envelope };
  return acceptedAnswer(idField, operation.id);
}

function acceptedAnswer(idField: IdField, id: string): HttpAnswer {
  return { status: 202, body: { [idField]: id, success: true, status: 'initialized' } };
}

/** What reading an operation answers at `now` (`/v2/operation/get`), as `sync: true` would have. */
export function operationStateAt(operation: OperationRecord, idField: IdField, now: number): HttpAnswer {
  if (now < operation.completesAt) {
    return { status: 200, body: { [idField]: operation.id, success: true, status: 'initialized' } };
  }
  if (isExpiredWait(operation, now)) {
    return {
      status: 200,
      body: failedEnvelope(idField, operation.id, new ProviderError('USER_INPUT_EXPIRED')),
    };
  }
  return { status: 200, body: operation.response };
}

/** Whether the operation waited for user input past its time. */
export function isExpiredWait(operation: OperationRecord, now: number): boolean {
  return operation.state === 'awaiting_input' && now >= (operation.inputExpiresAt ?? 0);
}
