/**
 * The operator API's refusals besides the deposits API's own, as the spec's failed envelope;
 * docs/operating.md shows this table.
 */
import { EnvelopeError } from '#shared/provider/interface/errors';

export const operatorErrorTypes = {
  DEPOSIT_NOT_RESOLVABLE: {
    status: 409,
    when: 'A resolve of a deposit whose transfer outcome is not unknown (or is resolved already)',
  },
  DEPOSIT_NOT_IN_FLIGHT: { status: 409, when: 'A redrive of a finished deposit' },
  DEPOSIT_TRANSFER_IN_FLIGHT: {
    status: 409,
    when: 'A redrive of a deposit whose transfer call may still be in flight (its attempt is on record and it has not stalled): re-driven, it would end `TRANSFER_OUTCOME_UNKNOWN` for no fault',
  },
} as const satisfies Record<string, { status: number; when: string }>;

export class OperatorError extends EnvelopeError {
  constructor(type: keyof typeof operatorErrorTypes, msg: string) {
    super(type, operatorErrorTypes[type].status, msg);
    this.name = 'OperatorError';
  }
}
