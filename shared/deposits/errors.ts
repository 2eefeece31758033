/**
 * The deposits API's own refusals, answered as the spec's failed envelope with these HTTP statuses;
 * docs/deposits.md shows this table.
 */
import { EnvelopeError } from '#shared/provider/interface/errors';

export const depositErrorTypes = {
  BAD_REQUEST: {
    status: 400,
    when: 'A body that is not JSON, a field missing or ill-typed, an amount with more decimals than its currency has',
  },
  UNAUTHORIZED: {
    status: 401,
    when: "No provider token (`Authorization`, or `X-Provider-Authorization` behind the API's own authorizer); on the operator API, no operator identity",
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
  DEPOSIT_NOT_CANCELLABLE: { status: 409, when: 'A cancel of a deposit at its transfer, or finished' },
  SOURCE_NOT_CANCELLABLE: { status: 409, when: 'A cancel of a source that is ready (or failed) already' },
  DEPOSIT_BUSY: { status: 409, when: 'A cancel that found the deposit moved under it, try after try' },
  INVALID_CURSOR: { status: 400, when: "A list cursor that is not one this API gave, or not this caller's" },
} as const satisfies Record<string, { status: number; when: string }>;

export class DepositError extends EnvelopeError {
  constructor(type: keyof typeof depositErrorTypes, msg: string, details?: string[]) {
    super(type, depositErrorTypes[type].status, msg, details);
    this.name = 'DepositError';
  }
}
