/**
 * What a deposit's owner, and its webhook receiver, are told of a failure: its type, and a message
 * from this fixed set. The deposit's record keeps the detail (the bank's own words, an exception's
 * text, who acted and why) for the operators, whose API shows it; none of it reaches an owner.
 */
import { errorTypes, realProviderErrorTypes } from '#shared/provider/interface/errors';

/**
 * Our own failure types: what the owner hears (`message`), and what each means (`meaning`, for
 * the operators and the docs: docs/deposits.md shows this table).
 */
export const failureTypes = {
  AMOUNT_BELOW_MINIMUM: {
    message: "The amount is below the bank's minimum for this transfer",
    meaning:
      "Below the bank's `transferBounds` minimum for this transfer type (checked before any call that moves money)",
  },
  CURRENCY_NOT_SUPPORTED: {
    message: "The bank states no minimum in the wallet account's currency",
    meaning:
      "The bank's bounds name no minimum in the wallet account's currency, or the bank publishes no bounds at all: it has not said it moves that currency, so nothing is sent",
  },
  INPUT_EXPIRED: {
    message: "Nobody answered the bank's question in time",
    meaning: "Nobody answered the bank's question within `INPUT_TTL_SECONDS`",
  },
  TRANSFER_OUTCOME_UNKNOWN: {
    message: "The transfer's outcome is not known: an operator will settle it with the bank",
    meaning:
      "The transfer's submission got no readable answer (timeout, 5xx, an unreadable body), or its step died between the submission and the write of its answer, so no operation id is on record; or the bank never said how the operation ended in 30 reads (its `msg` names the operation). Money may have moved: it is never retried automatically. An operator resolves it (Operator API: `resolve`), and the caller hears the resolution",
  },
  TRANSFER_NOT_EXECUTED: {
    message: 'The bank did not carry the transfer out (settled by an operator)',
    meaning:
      "An operator settled an unknown outcome as failed, from the bank's ledger: the bank did not carry the transfer out (`POST /v1/ops/deposits/resolve` with `outcome: failed` and a reason)",
  },
  BENEFICIARY_UNRESOLVED: {
    message: "The bank does not list the wallet's beneficiary it created",
    meaning:
      'The bank created the beneficiary, or says it exists, but does not list it (looked up again once: 30 s later, or after its cool-down). It is never created a second time',
  },
  BENEFICIARY_AMBIGUOUS: {
    message: "The bank lists accounts masked, and nothing tells which is the wallet's beneficiary",
    meaning:
      "The bank lists accounts masked, and nothing tells which entry is the wallet's: it says the beneficiary exists (the user added the wallet's account before) while the list shows only masked entries that fit, or the list after our own creation shows no single new one. A creation whose answer was lost, even with the step killed right after it, is told apart by the fitting entries listed before it: the claim records them before the creation is sent, and whoever runs next (the same deposit, or one taking the claim over) reads them there. Nothing is matched by name or by a masked fragment alone, and nothing moves",
  },
  PROVIDER_UNAVAILABLE: {
    message: 'The bank could not be reached, or kept the connection busy',
    meaning:
      "A read (metadata, beneficiaries) kept failing after `MAX_RETRIES` retries, or the bank kept the user's connection busy (`OPERATION_IN_PROGRESS`, or a 429 anywhere: \"later\", never \"no\") through 24 tries, waits growing to half a minute (some eight minutes; a wait for a lease another deposit holds starts with eight waits of a second, and ends sooner when that deposit frees the lease and wakes it): busy is contention, counted apart from failed calls, and a question from the bank starts both counts over. A refusal's `Retry-After` (seconds or an HTTP date; the provider client's `ProviderRefusal.retryAfterMs`) lengthens the wait it ends, never shortens it, up to 15 minutes (SQS's longest delay); the sweeper's look waits for it too, and so does the next read of a transfer's outcome",
  },
  PROVIDER_PROTOCOL_ERROR: {
    message: 'The bank answered without what its answer must carry',
    meaning:
      'The provider answered `done` without what `done` must carry (metadata without `accountsMetadata`)',
  },
  STEP_FAILED: {
    message: 'The deposit could not go on; the operators are alerted',
    meaning:
      "A step threw on every try of its message (5, the queue's receive count before its DLQ; not when the last try's error passes with time, such as throttling or a timeout: then the sweeper re-drives the deposit later), or the sweeper re-drove the deposit `MAX_REDRIVES` times without it moving. Its `msg` names the step and the error. A deposit with a transfer attempt on record ends `TRANSFER_OUTCOME_UNKNOWN` instead",
  },
  CANCELLED: {
    message: 'The deposit was cancelled before its transfer',
    meaning: 'Its owner cancelled it (`POST /v1/deposits/cancel`) before its transfer',
  },
  PROVIDER_REFUSED: {
    message: 'The bank refused the deposit',
    meaning:
      "The bank refused with a type this service does not know (neither ours, nor the interface's, nor one the real provider documents), or with one that is not a type (`^[A-Z_]{1,64}$`). The record's `msg`, which the operators see, starts with the bank's own type",
  },
  BENEFICIARY_COOL_DOWN_PERIOD: {
    message: "The bank kept the wallet's beneficiary in its cool-down",
    meaning:
      "The bank kept refusing the transfer for a cool-down: after `MAX_RETRIES` waits (each at least `COOL_DOWN_RETRY_SECONDS`, a minute, until the instant the bank names), counted across the deposit's steps",
  },
} as const satisfies Record<string, { message: string; meaning: string }>;

/**
 * The type a failure is recorded and told under: ours, or for a bank's refusal the interface's
 * (`errorTypes`) or the real provider's (`realProviderErrorTypes`); any other is `PROVIDER_REFUSED`,
 * so that a type the bank made up never reaches an owner or a webhook receiver (the record's message
 * keeps it for the operators: `fail`).
 */
export function failureTypeOf(type: string): FailureType {
  return (failureTypeNames as readonly string[]).includes(type) ? (type as FailureType) : 'PROVIDER_REFUSED';
}

/**
 * Every failure type an owner (and a webhook receiver) may meet, a closed set: ours, the interface's
 * and the real provider's refusal types (the typed client's `Deposit` names them as a literal union).
 */
export type FailureType =
  | keyof typeof failureTypes
  | keyof typeof errorTypes
  | keyof typeof realProviderErrorTypes;
export const failureTypeNames = [
  ...new Set([
    ...Object.keys(failureTypes),
    ...Object.keys(errorTypes),
    ...Object.keys(realProviderErrorTypes),
  ]),
] as [FailureType, ...FailureType[]];

/** The owner's message for a failure of this type: ours, the spec's for a bank's refusal, else a plain one. */
export function ownerMessage(type: string): string {
  return (
    (failureTypes as Record<string, { message: string } | undefined>)[type]?.message ??
    (errorTypes as Record<string, { msg: string } | undefined>)[type]?.msg ??
    (realProviderErrorTypes as Record<string, { msg: string } | undefined>)[type]?.msg ??
    'The deposit failed'
  );
}
