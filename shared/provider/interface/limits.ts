/**
 * The most any request may carry: every id and text field has a maximum length and every array a
 * maximum size, checked by the request schemas before anything is read or stored (over it is
 * BAD_REQUEST naming the field). They keep every key far inside DynamoDB's (2 KB partition, 1 KB
 * sort) and every item far inside its 400 KB. The sandbox page's "Limits" table (docs/sandbox.md) is this object.
 */
import { badRequest } from './errors.ts';

export const inputLimits = {
  /** `senderID`, `receiverID`, `cardID`, `operationID`, `jobID`, `connectionID`, `bankId`, `walletAccountID`. */
  id: 128,
  /** `appSecret`, `userSecret`, `accessCode`. */
  secret: 1024,
  /** The bearer token of the `Authorization` header. */
  bearerToken: 2048,
  /** Names, bank, branch and address lines, `country` (the full name), `type`. */
  text: 256,
  /** The inline transfer's `action`: a name of a payment flow. */
  action: 64,
  /** `iban`, as sent (spaces allowed); a valid one has at most 34 characters. */
  iban: 64,
  /** `accountNumber`. */
  accountNumber: 64,
  /** `swiftCode`, `sortCode`. */
  code: 32,
  /** `userInputs`: at most this many, each `id` and `answer` and `query` at most these lengths. */
  userInputs: 10,
  inputId: 64,
  answer: 256,
  query: 1024,
  /** `POST /sandbox/faults`: rules per user, and a rule's `path`. */
  faultRules: 10,
  faultPath: 256,
  /** Beneficiaries one sandbox user may hold (a bank's own limit; the list stays one answer). */
  beneficiariesPerUser: 100,
} as const;

/**
 * How long a sandbox function may run: the HTTP API's own integration limit is 30 s, past which the
 * gateway answers on its own (not our envelope). The CDK settings give the sandbox's functions this.
 */
export const sandboxFunctionTimeoutSeconds = 30;

/**
 * The longest an injected fault may make a request wait, latency and a timeout's hang together: the
 * function's time less 5 s for the operation itself and a cold start. Over it is BAD_REQUEST.
 */
export const faultWaitBudgetMs = (sandboxFunctionTimeoutSeconds - 5) * 1000;

/** Whether an `Authorization` header is longer than any bearer token taken (`Bearer ` and the limit). */
export function isOverLongAuthorization(authorization: string | undefined): boolean {
  return (authorization?.trim() ?? '').length > inputLimits.bearerToken + 'Bearer '.length;
}

/**
 * The bearer token of an `Authorization` header (`Bearer <token>`); undefined when there is none.
 * A header longer than the limit is BAD_REQUEST naming it, before the token is looked up anywhere
 * (the deposits API's answer; the sandbox, as the provider, answers UNAUTHORIZED before calling this).
 */
export function bearerTokenOf(authorization: string | undefined): string | undefined {
  if (isOverLongAuthorization(authorization)) {
    throw badRequest([`Authorization header: at most ${inputLimits.bearerToken} characters`]);
  }
  return /^Bearer\s+(\S+)$/i.exec(authorization?.trim() ?? '')?.[1];
}
