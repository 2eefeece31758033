/** The operator API's refusals besides the deposits API's own, as the spec's failed envelope. */
import { EnvelopeError } from '#shared/provider/interface/errors';

export const operatorErrorTypes = {
  /** A resolve of a deposit whose transfer outcome is not unknown (or is resolved already). */
  DEPOSIT_NOT_RESOLVABLE: 409,
  /** A redrive of a finished deposit. */
  DEPOSIT_NOT_IN_FLIGHT: 409,
  /**
   * A redrive of a deposit whose transfer call may still be in flight (its attempt is on record and
   * it has not stalled): re-driven, it would end TRANSFER_OUTCOME_UNKNOWN for no fault.
   */
  DEPOSIT_TRANSFER_IN_FLIGHT: 409,
} as const;

export class OperatorError extends EnvelopeError {
  constructor(type: keyof typeof operatorErrorTypes, msg: string) {
    super(type, operatorErrorTypes[type], msg);
    this.name = 'OperatorError';
  }
}
