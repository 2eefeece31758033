/**
 * Reading what the provider answered, once its HTTP answer is in (`client.ts` sends the request and
 * makes a timeout, a reset, a 5xx or a body that is not JSON an unknown outcome): a failed envelope is
 * a refusal, a body the spec's schema reads is the answer, anything else an unknown outcome.
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
}

/**
 * Validates a body: a failed envelope is a refusal whatever the HTTP status below 500 (a provider
 * may answer its failures with 200), anything off-spec an unknown outcome. (A 5xx never reaches
 * here: even with an envelope, a server error says nothing of what took effect.)
 */
export function readBody<S extends z.ZodType>(schema: S, response: RawResponse, path: string): z.infer<S> {
  const failed = FailedEnvelope.safeParse(response.json);
  if (failed.success) {
    throw refusal(failed.data, response, failed.data.operationID ?? failed.data.jobID ?? undefined);
  }
  const parsed = schema.safeParse(response.json);
  if (!parsed.success || response.status >= 400) {
    throw new ProviderUnknownOutcome(
      'unreadable',
      `${path} answered ${response.status} with a body outside the spec`,
      response.status,
    );
  }
  return parsed.data;
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
export function refusal(failed: { type: string; msg: string }, response: RawResponse, operationId?: string) {
  return new ProviderRefusal(failed.type, failed.msg, response.status, operationId, response.retryAfterMs);
}
