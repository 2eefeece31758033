/**
 * What a deposit's owner, and its webhook receiver, are told of a failure: its type, and a message
 * from this fixed set. The deposit's record keeps the detail (the bank's own words, an exception's
 * text, who acted and why) for the operators, whose API shows it; none of it reaches an owner.
 */
import { errorTypes } from '#shared/provider/interface/errors';

const ownMessages: Record<string, string> = {
  AMOUNT_BELOW_MINIMUM: "The amount is below the bank's minimum for this transfer",
  CURRENCY_NOT_SUPPORTED: "The bank states no minimum in the wallet account's currency",
  INPUT_EXPIRED: "Nobody answered the bank's question in time",
  TRANSFER_OUTCOME_UNKNOWN: "The transfer's outcome is not known: an operator will settle it with the bank",
  TRANSFER_NOT_EXECUTED: 'The bank did not carry the transfer out (settled by an operator)',
  BENEFICIARY_UNRESOLVED: "The bank does not list the wallet's beneficiary it created",
  BENEFICIARY_AMBIGUOUS:
    "The bank lists accounts masked, and nothing tells which is the wallet's beneficiary",
  PROVIDER_UNAVAILABLE: 'The bank could not be reached, or kept the connection busy',
  PROVIDER_PROTOCOL_ERROR: 'The bank answered without what its answer must carry',
  STEP_FAILED: 'The deposit could not go on; the operators are alerted',
  CANCELLED: 'The deposit was cancelled before its transfer',
  BENEFICIARY_COOL_DOWN_PERIOD: "The bank kept the wallet's beneficiary in its cool-down",
};

/** The owner's message for a failure of this type: ours, the spec's for a bank's refusal, else a plain one. */
export function ownerMessage(type: string): string {
  return (
    ownMessages[type] ??
    (errorTypes as Record<string, { msg: string } | undefined>)[type]?.msg ??
    'The deposit failed'
  );
}
