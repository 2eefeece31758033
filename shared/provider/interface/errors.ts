/**
 * The error types of the interface and the HTTP status each is answered with. The spec names two
 * (BAD_REQUEST, UNAUTHORIZED); the rest follow the names real providers of this kind use. The error
 * table of docs/deposits.md is this object.
 */
export const errorTypes = {
  BAD_REQUEST: { status: 400, msg: 'Invalid JSON request' },
  UNAUTHORIZED: { status: 401, msg: 'Invalid access token' },
  INVALID_ACCESS_CODE: { status: 400, msg: 'Access code is invalid, expired or already used' },
  INVALID_MFA: { status: 400, msg: 'The one-time password is incorrect' },
  USER_INPUT_EXPIRED: { status: 410, msg: 'The operation waited too long for user input' },
  INVALID_IBAN: { status: 400, msg: 'IBAN is not valid' },
  INVALID_ACCOUNT_ID: { status: 404, msg: 'No account with this senderID' },
  INVALID_CARD_ID: { status: 404, msg: 'No card with this cardID' },
  INVALID_BENEFICIARY_ID: { status: 404, msg: 'No beneficiary with this receiverID' },
  INVALID_OPERATION_ID: { status: 404, msg: 'No operation with this id is waiting for this request' },
  INVALID_BANK_ID: { status: 404, msg: 'No sandbox bank with this bankId' },
  OPERATION_MISMATCH: { status: 409, msg: 'The repeated request differs from the operation it answers' },
  OPERATION_IN_PROGRESS: { status: 409, msg: 'Another operation is in progress on this connection' },
  BENEFICIARY_ALREADY_EXISTS: { status: 409, msg: 'A beneficiary with this IBAN already exists' },
  BENEFICIARY_LIMIT_REACHED: { status: 422, msg: 'The user holds as many beneficiaries as the bank allows' },
  BENEFICIARY_REQUIRED: {
    status: 422,
    msg: 'This bank requires a beneficiary: create one and send receiverID',
  },
  BENEFICIARY_NOT_SUPPORTED: {
    status: 422,
    msg: 'This bank takes no beneficiaries: send the receiver inline (action and beneficiary, no receiverID)',
  },
  BENEFICIARY_DETAILS_REQUIRED: {
    status: 422,
    msg: 'This bank requires beneficiary details on the first transfer to a beneficiary',
  },
  BENEFICIARY_DETAILS_MISMATCH: { status: 422, msg: 'Beneficiary details do not match the beneficiary' },
  BENEFICIARY_COOL_DOWN_PERIOD: { status: 422, msg: 'The beneficiary is in its cool-down period' },
  AMOUNT_BELOW_MINIMUM: { status: 422, msg: 'Amount is below the bank minimum for this transfer type' },
  INSUFFICIENT_BALANCE: { status: 422, msg: 'Insufficient balance in the sender account' },
  NOT_FOUND: { status: 404, msg: 'No such route' },
  PAYLOAD_TOO_LARGE: { status: 413, msg: 'Request body is too large' },
  INTERNAL_ERROR: { status: 500, msg: 'Internal error' },
  BAD_GATEWAY: { status: 502, msg: 'The bank answered with an error' },
  SERVICE_UNAVAILABLE: { status: 503, msg: 'The bank is unavailable' },
  GATEWAY_TIMEOUT: { status: 504, msg: 'The bank did not answer in time' },
} as const satisfies Record<string, { status: number; msg: string }>;

export type ErrorType = keyof typeof errorTypes;

/**
 * The real provider's refusal types that the table above does not name (its error list, D-errors in
 * docs/provider-v2.md), with what a deposit's owner is told of each. The sandbox answers none of them.
 */
export const realProviderErrorTypes = {
  INACTIVE_ACCOUNT: { msg: "The user's bank account is inactive" },
  INVALID_CREDENTIALS: { msg: 'The bank no longer accepts this connection: the user must connect again' },
  INVALID_DATE_RANGE: { msg: 'The bank refused the date range' },
  PARAMETER_ERROR: { msg: 'The bank refused a field of the request' },
  PARAMETER_MISSING: { msg: 'The bank found a field of the request missing' },
  BENEFICIARY_NOT_ACTIVATED: { msg: "The bank has not activated the wallet's beneficiary yet" },
} as const satisfies Record<string, { msg: string }>;

/** An operation as an envelope names it: by `jobID` (metadata, beneficiaries) or `operationID`. */
export interface NamedOperation {
  idField: 'jobID' | 'operationID';
  id: string;
}

/** Any refusal answered as the spec's failed envelope: a type, an HTTP status, a message. */
export class EnvelopeError extends Error {
  constructor(
    readonly type: string,
    readonly status: number,
    msg: string,
    readonly details?: string[] | undefined,
    /** Headers the refusal is answered with (`Retry-After`). */
    readonly headers?: Record<string, string> | undefined,
    /** The operation the refusal names in its envelope, as a failed operation's envelope does. */
    readonly operation?: NamedOperation | undefined,
  ) {
    super(msg);
    this.name = 'EnvelopeError';
  }
}

/** A refusal of the provider interface (the sandbox), with a type from the table above. */
export class ProviderError extends EnvelopeError {
  declare readonly type: ErrorType;

  constructor(type: ErrorType, msg?: string, details?: string[]) {
    super(type, errorTypes[type].status, msg ?? errorTypes[type].msg, details);
    this.name = 'ProviderError';
  }
}

export function badRequest(details: string[]): ProviderError {
  return new ProviderError('BAD_REQUEST', errorTypes.BAD_REQUEST.msg, details);
}
