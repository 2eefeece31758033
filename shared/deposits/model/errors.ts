/**
 * The deposits API's own refusals, by type: what a use case throws when it will not do what it is
 * asked. How each is answered over HTTP (its status) is the HTTP layer's (`shared/middleware/api-errors.ts`).
 */
export const depositErrorTypes = [
  'BAD_REQUEST',
  'UNSUPPORTED_MEDIA_TYPE',
  'UNAUTHORIZED',
  'METHOD_NOT_ALLOWED',
  'DEPOSIT_NOT_FOUND',
  'SOURCE_NOT_FOUND',
  'INVALID_WALLET_ACCOUNT_ID',
  'AMOUNT_ABOVE_MAXIMUM',
  'IDEMPOTENCY_KEY_REUSED',
  'CLIENT_REFERENCE_REUSED',
  'DEPOSIT_NOT_CANCELLABLE',
  'DEPOSIT_NOT_WAITING',
  'SOURCE_NOT_CANCELLABLE',
  'DEPOSIT_BUSY',
  'INVALID_CURSOR',
] as const;
export type DepositErrorType = (typeof depositErrorTypes)[number];

export class DepositError extends Error {
  constructor(
    readonly type: DepositErrorType,
    msg: string,
    readonly details?: string[],
  ) {
    super(msg);
    this.name = 'DepositError';
  }
}
