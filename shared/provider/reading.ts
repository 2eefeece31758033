/**
 * Reading what the provider answered, once its HTTP answer is in (`client.ts` sends the request and
 * makes a timeout, a reset, a 5xx or a body that is not JSON an unknown outcome): a failed envelope is
 * a refusal, a body the dialect's schema reads is the answer, anything else an unknown outcome.
 */
import type { z } from 'zod';
import { FailedEnvelope } from '#shared/provider/interface/responses';
import { ProviderRefusal, ProviderUnknownOutcome } from './outcomes.ts';

/** A provider's HTTP answer below 500, its body parsed as JSON. */
export interface RawResponse {
  status: number;
  json: unknown;
  /** Its `Retry-After`, read when it came. */
  retryAfterMs?: number | undefined;
  /** When it was read (epoch ms): the instant a period it names counts from. */
  at?: number | undefined;
}

/**
 * The refusal a body stands for, if it is its dialect's failed envelope (`operationId`: the
 * operation the answer named, over the envelope's own id); undefined when it is not one.
 */
export type Refuser = (
  json: unknown,
  response: RawResponse,
  operationId?: string,
) => ProviderRefusal | undefined;

/** The spec's failed envelope: `success: false`, `status: failed`, a `type` and a `msg`. */
export const specRefusal: Refuser = (json, response, operationId) => {
  const failed = FailedEnvelope.safeParse(json);
  if (!failed.success) return undefined;
  return refusal(
    failed.data,
    response,
    operationId ?? failed.data.operationID ?? failed.data.jobID ?? undefined,
  );
};

/**
 * Validates a body: a failed envelope is a refusal whatever the HTTP status below 500 (a provider
 * may answer its failures with 200), anything off-spec an unknown outcome. (A 5xx never reaches
 * here: even with an envelope, a server error says nothing of what took effect.)
 */
export function readBody<S extends z.ZodType>(
  schema: S,
  response: RawResponse,
  path: string,
  refuse: Refuser = specRefusal,
): z.infer<S> {
  const refused = refuse(response.json, response);
  if (refused) throw refused;
  const parsed = schema.safeParse(response.json);
  if (!parsed.success || response.status >= 400) throw outsideTheSpec(path, response);
  return parsed.data;
}

export function outsideTheSpec(path: string, response: RawResponse) {
  return new ProviderUnknownOutcome(
    'unreadable',
    `${path} answered ${response.status} with a body outside the spec`,
    response.status,
  );
}

/**
 * A response as the client hands it on: a top-level field sent as `null` (a field the spec returns
 * only in some answers, from a bank that writes every field) is absent, as if not sent.
 */
export type Read<T> = { [K in keyof T]: Exclude<T[K], null> };

export function withoutNulls<T extends object>(value: T): Read<T> {
  return Object.fromEntries(Object.entries(value).filter(([, field]) => field !== null)) as Read<T>;
}

/** The refusal a failed envelope stands for, with the operation it names and the wait it asks. */
export function refusal(
  failed: { type: string; msg: string },
  response: RawResponse,
  operationId?: string,
  coolDownEndsAt?: number,
) {
  return new ProviderRefusal(
    failed.type,
    failed.msg,
    response.status,
    operationId,
    response.retryAfterMs,
    coolDownEndsAt,
  );
}
