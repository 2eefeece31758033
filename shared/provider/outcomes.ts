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

/** What a refusal's `type` must look like to be taken as a type: a name in capitals. */
export const refusalTypePattern = /^[A-Z_]{1,64}$/;
/** The type of a refusal whose own is not one (`refusalTypePattern`): it is named in the message. */
export const unknownRefusalType = 'PROVIDER_REFUSED';
/** The longest `msg` a refusal keeps (the bank's words, for the operators). */
export const refusalMsgLength = 512;
/** The most of a provider's answer the client reads: past it, the outcome is unknown. */
export const maxProviderBodyBytes = 1024 * 1024;

/** A text on one line (control characters as spaces), at most `length` characters. */
function bounded(text: string, length: number): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it removes
  return text.replace(/[\u0000-\u001f\u007f]/g, ' ').slice(0, length);
}

/**
 * The type and message a refusal keeps: a type that is a name, else `unknownRefusalType` with the
 * provider's (quoted, cut to 80 characters) first in the message; the message on one line, capped.
 */
function boundedRefusal(type: string, msg: string): { type: string; msg: string } {
  if (refusalTypePattern.test(type)) return { type, msg: bounded(msg, refusalMsgLength) };
  const named = `the provider's type ${JSON.stringify(type).slice(0, 80)}: ${msg}`;
  return { type: unknownRefusalType, msg: bounded(named, refusalMsgLength) };
}

export class ProviderRefusal extends Error {
  /** The provider's type, when it is a name (`refusalTypePattern`); else `unknownRefusalType`. */
  readonly type: string;
  /** The provider's message, on one line, at most `refusalMsgLength` characters. */
  readonly msg: string;
  /**
   * For BENEFICIARY_COOL_DOWN_PERIOD: when the cool-down ends (epoch ms), if the provider said.
   * The spec gives no field for it; the provider names the instant in its message, read here once
   * (the `dapi-v2` dialect names a period instead: its client gives the instant it ends).
   */
  readonly coolDownEndsAt: number | undefined;

  constructor(
    type: string,
    msg: string,
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
    const kept = boundedRefusal(type, msg);
    super(`${kept.type}: ${kept.msg}`);
    this.name = 'ProviderRefusal';
    this.type = kept.type;
    this.msg = kept.msg;
    this.coolDownEndsAt =
      kept.type === 'BENEFICIARY_COOL_DOWN_PERIOD' ? (coolDownEndsAt ?? instantIn(kept.msg)) : undefined;
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
