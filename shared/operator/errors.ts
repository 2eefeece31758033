/**
 * The operator API's refusals besides the deposits API's own, by type. How each is answered over
 * HTTP (its status) is the HTTP layer's (`shared/middleware/api-errors.ts`).
 */
export const operatorErrorTypes = [
  'DEPOSIT_NOT_RESOLVABLE',
  'DEPOSIT_NOT_IN_FLIGHT',
  'DEPOSIT_TRANSFER_IN_FLIGHT',
  'DELIVERY_NOT_FOUND',
  'RESOLUTION_NEEDS_ANOTHER_OPERATOR',
  'RESOLUTION_DISAGREES',
] as const;
export type OperatorErrorType = (typeof operatorErrorTypes)[number];

export class OperatorError extends Error {
  constructor(
    readonly type: OperatorErrorType,
    msg: string,
  ) {
    super(msg);
    this.name = 'OperatorError';
  }
}
