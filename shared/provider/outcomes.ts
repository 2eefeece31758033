/**
 * What the provider answers, as the client hands it on: an answer (`ProviderAnswer`), a refusal
 * (`ProviderRefusal`: nothing happened at the bank), or an unknown outcome (`ProviderUnknownOutcome`:
 * it may have); and what a call carries in (credentials, answers to a question). `client.ts` says
 * which HTTP answers are which.
 */
import type { UserInput } from '#shared/provider/interface/schemas';

/** Who the provider acts for: the user's permanent access token and the two secrets. */
export interface ProviderCredentials {
  accessToken: string;
  appSecret: string;
  userSecret: string;
}

/** Answers to a `user_input_required`: the operation's id and the inputs with their answers. */
export interface InputAnswer {
  id: string;
  userInputs: UserInput[];
}

export type ProviderAnswer<T> =
  | { status: 'done'; id: string; response: T }
  | { status: 'user_input_required'; id: string; userInputs: UserInput[]; response: T }
  | { status: 'initialized'; id: string; response: T };

export class ProviderRefusal extends Error {
  /**
   * For BENEFICIARY_COOL_DOWN_PERIOD: when the cool-down ends (epoch ms), if the provider said.
   * The spec gives no field for it; the provider names the instant in its message, read here once
   * (the `dapi-v2` dialect names a period instead: its client gives the instant it ends).
   */
  readonly coolDownEndsAt: number | undefined;

  constructor(
    readonly type: string,
    readonly msg: string,
    readonly httpStatus: number,
    /** The operation's id, when the provider assigned one before refusing. */
    readonly operationId?: string,
    /**
     * How long the provider asked the caller to wait before trying again (its `Retry-After`, in
     * ms from when the refusal was read), when it said; the steps wait at least that long after a
     * refusal that says "later" (`saysLater`).
     */
    readonly retryAfterMs?: number,
    /** For BENEFICIARY_COOL_DOWN_PERIOD: the end as the dialect's answer gave it, over `msg`'s instant. */
    coolDownEndsAt?: number,
  ) {
    super(`${type}: ${msg}`);
    this.name = 'ProviderRefusal';
    this.coolDownEndsAt =
      type === 'BENEFICIARY_COOL_DOWN_PERIOD' ? (coolDownEndsAt ?? instantIn(msg)) : undefined;
  }
}

/**
 * The wait a `Retry-After` header names, in ms from `now`: delay-seconds (digits), or an HTTP date
 * (any of HTTP's three forms, GMT; one already past is no wait). Undefined when absent or unreadable.
 */
export function retryAfterMs(value: string | null | undefined, now: number): number | undefined {
  const text = value?.trim() ?? '';
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  // Every HTTP date begins with the day's name; the asctime form names no zone, and is GMT.
  if (!/^[A-Za-z]{3,9},?\s/.test(text)) return undefined;
  const at = Date.parse(/GMT$/i.test(text) ? text : `${text} GMT`);
  return Number.isFinite(at) ? Math.max(0, at - now) : undefined;
}

/** The first ISO 8601 UTC instant in a text, as epoch ms. */
function instantIn(text: string): number | undefined {
  const match = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z/.exec(text);
  const at = match ? Date.parse(match[0]) : Number.NaN;
  return Number.isFinite(at) ? at : undefined;
}

export type UnknownReason = 'timeout' | 'network' | 'server_error' | 'unreadable';

export class ProviderUnknownOutcome extends Error {
  constructor(
    readonly reason: UnknownReason,
    detail: string,
    readonly httpStatus?: number,
  ) {
    super(`provider outcome unknown (${reason}): ${detail}`);
    this.name = 'ProviderUnknownOutcome';
  }
}
