/**
 * When the sandbox answers each error type of the interface (`errorTypes`, its status and message):
 * the error table of docs/deposits.md is these two, side by side.
 */
import type { ErrorType } from '#shared/provider/interface/errors';

export const whenAnswered = {
  BAD_REQUEST:
    'Body is not JSON, or not sent as `Content-Type: application/json` (sandbox), a field is missing or ill-typed, an amount has too many decimals (`msg` is always `Invalid JSON request`)',
  UNAUTHORIZED:
    'Any wrong, mismatched or over-long token, `appSecret` or `userSecret` (`msg` is always `Invalid access token`)',
  INVALID_ACCESS_CODE: 'Access code unknown, expired or already used',
  INVALID_MFA: "A third wrong or empty answer to the bank's questions (the first two are asked again)",
  USER_INPUT_EXPIRED: 'The answer came after the operation stopped waiting',
  INVALID_IBAN:
    'IBAN not valid for its country: length, national (BBAN) format or check digits (`ibantools`)',
  INVALID_ACCOUNT_ID: "`senderID` is not one of the user's accounts",
  INVALID_CARD_ID: "`cardID` is not one of the user's cards",
  INVALID_BENEFICIARY_ID: "`receiverID` is not one of the user's beneficiaries",
  INVALID_OPERATION_ID: "The id is unknown, another user's, of another kind, or no longer waiting for input",
  INVALID_BANK_ID: '`POST /sandbox/users` with an unknown `bankId`',
  OPERATION_MISMATCH: 'A repeated request differs from the operation it answers',
  OPERATION_IN_PROGRESS: "Another operation holds the user's connection",
  BENEFICIARY_ALREADY_EXISTS: 'The user already has a beneficiary with this IBAN',
  BENEFICIARY_LIMIT_REACHED: 'The user already holds 100 beneficiaries',
  BENEFICIARY_REQUIRED: 'Inline transfer on a bank that requires beneficiaries',
  BENEFICIARY_NOT_SUPPORTED:
    'Beneficiary creation, or a transfer with `receiverID`, on a bank without beneficiaries',
  BENEFICIARY_DETAILS_REQUIRED: 'First transfer to a beneficiary without its details, on a scenario 2 bank',
  BENEFICIARY_DETAILS_MISMATCH: "The details sent name another IBAN than the beneficiary's",
  BENEFICIARY_COOL_DOWN_PERIOD: 'The beneficiary is still in its cool-down',
  AMOUNT_BELOW_MINIMUM: "Below the bank's minimum for the currency and transfer type",
  INSUFFICIENT_BALANCE: 'More than the account holds',
  NOT_FOUND: 'No such route',
  PAYLOAD_TOO_LARGE: 'Body over 1 MiB, refused by the handler itself (the same answer locally and in AWS)',
  INTERNAL_ERROR: 'An unexpected error (logged, never detailed), or an injected fault',
  BAD_GATEWAY: 'Injected fault',
  SERVICE_UNAVAILABLE: 'Injected fault',
  GATEWAY_TIMEOUT: 'Injected timeout',
} as const satisfies Record<ErrorType, string>;
