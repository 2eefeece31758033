/**
 * How the deposits and operator APIs answer their domains' refusals: the spec's failed envelope,
 * with these HTTP statuses; docs/deposits.md shows this table.
 */
import { DepositError, type DepositErrorType } from '#shared/deposits/model/errors';
import { OperatorError, type OperatorErrorType } from '#shared/operator/errors';
import { EnvelopeError } from '#shared/provider/interface/errors';

export const depositErrorAnswers = {
  BAD_REQUEST: {
    status: 400,
    when: 'A body that is not JSON, a field missing, ill-typed or unknown (each named in `details`, and `msg` says what is wrong), an amount with more decimals than its currency has',
  },
  UNSUPPORTED_MEDIA_TYPE: {
    status: 415,
    when: 'A body not sent as `Content-Type: application/json` (a form, `text/plain`, none): refused before it is read',
  },
  UNAUTHORIZED: {
    status: 401,
    when: "No provider token where one is needed (a create), or one not in the form `Bearer <accessToken>` (`Authorization`, or `X-Provider-Authorization` behind the API's own authorizer); on the operator API, no operator identity",
  },
  METHOD_NOT_ALLOWED: {
    status: 405,
    when: 'A route called with another method than its own (the `Allow` header names it)',
  },
  DEPOSIT_NOT_FOUND: {
    status: 404,
    when: 'No deposit with this id, or not one the caller (its token and user secret) may read',
  },
  SOURCE_NOT_FOUND: { status: 404, when: 'The same, for a payment source' },
  INVALID_WALLET_ACCOUNT_ID: { status: 400, when: 'A `walletAccountID` the deployment does not configure' },
  AMOUNT_ABOVE_MAXIMUM: {
    status: 400,
    when: "More than the wallet account's `maxDeposit` (100,000 unless configured)",
  },
  IDEMPOTENCY_KEY_REUSED: { status: 409, when: 'An `Idempotency-Key` used before with a different body' },
  CLIENT_REFERENCE_REUSED: {
    status: 409,
    when: "A `clientReference` of a deposit the caller may not see (created without a backend identity, by another user of the connection); the backend's own answers its deposit instead",
  },
  DEPOSIT_NOT_CANCELLABLE: { status: 409, when: 'A cancel of a deposit at its transfer, or finished' },
  DEPOSIT_NOT_WAITING: {
    status: 409,
    when: 'An answer (`POST /v1/deposits/answer`) to a deposit that waits for none: answered already, or never asked (its `msg` says where it stands)',
  },
  SOURCE_NOT_CANCELLABLE: { status: 409, when: 'A cancel of a source that is ready (or failed) already' },
  DEPOSIT_BUSY: { status: 409, when: 'A cancel that found the deposit moved under it, try after try' },
  INVALID_CURSOR: { status: 400, when: "A list cursor that is not one this API gave, or not this caller's" },
} as const satisfies Record<DepositErrorType, { status: number; when: string }>;

export const operatorErrorAnswers = {
  DEPOSIT_NOT_RESOLVABLE: {
    status: 409,
    when: 'A resolve of a deposit whose transfer outcome is not unknown (or is resolved already)',
  },
  DEPOSIT_NOT_IN_FLIGHT: { status: 409, when: 'A redrive of a finished deposit' },
  DEPOSIT_TRANSFER_IN_FLIGHT: {
    status: 409,
    when: 'A redrive of a deposit whose transfer call may still be in flight (its attempt is on record and it has not stalled): re-driven, it would end `TRANSFER_OUTCOME_UNKNOWN` for no fault',
  },
  DELIVERY_NOT_FOUND: {
    status: 404,
    when: 'A resend of an event whose delivery the notifier never tried (no webhook, or not queued yet), or not of this deposit',
  },
  RESOLUTION_NEEDS_ANOTHER_OPERATOR: {
    status: 403,
    when: 'A resolve to `done` above the approval threshold by the operator who proposed it: a second, different operator must approve it',
  },
  RESOLUTION_DISAGREES: {
    status: 409,
    when: 'A resolve by another operator than the proposer of a pending `done` that says otherwise (another reference, or `failed`): approve the proposal as it is, or settle it with its proposer, who may change it; it lapses after a day',
  },
} as const satisfies Record<OperatorErrorType, { status: number; when: string }>;

/** A domain's refusal as the failed envelope it is answered with; undefined for anything else. */
export function envelopeOf(error: unknown): EnvelopeError | undefined {
  if (error instanceof EnvelopeError) return error;
  if (error instanceof DepositError)
    return new EnvelopeError(
      error.type,
      depositErrorAnswers[error.type].status,
      error.message,
      error.details,
    );
  if (error instanceof OperatorError)
    return new EnvelopeError(error.type, operatorErrorAnswers[error.type].status, error.message);
  return undefined;
}
