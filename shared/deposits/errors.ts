/** The deposits API's own refusals, answered as the spec's failed envelope with these HTTP statuses. */
import { EnvelopeError } from '#shared/provider/interface/errors';

export const depositErrorTypes = {
  BAD_REQUEST: 400,
  UNAUTHORIZED: 401,
  DEPOSIT_NOT_FOUND: 404,
  SOURCE_NOT_FOUND: 404,
  INVALID_WALLET_ACCOUNT_ID: 400,
  /** An amount over the largest deposit its wallet account takes (`maxDeposit` of its configuration). */
  AMOUNT_ABOVE_MAXIMUM: 400,
  IDEMPOTENCY_KEY_REUSED: 409,
  /** A cancel of a deposit at its transfer, or finished. */
  DEPOSIT_NOT_CANCELLABLE: 409,
  /** A cancel of a source that is ready (or failed) already. */
  SOURCE_NOT_CANCELLABLE: 409,
  /** A cancel that found the deposit moved under it, try after try. */
  DEPOSIT_BUSY: 409,
  /** A list cursor that is not one this API gave, or not this caller's. */
  INVALID_CURSOR: 400,
} as const;

export class DepositError extends EnvelopeError {
  constructor(type: keyof typeof depositErrorTypes, msg: string, details?: string[]) {
    super(type, depositErrorTypes[type], msg, details);
    this.name = 'DepositError';
  }
}
