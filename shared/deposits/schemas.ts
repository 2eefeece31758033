/**
 * The deposits API's requests. It follows the spec's conventions: secrets in the body, bearer token.
 * Every field is bounded (`inputLimits`), checked before anything is read or stored.
 */
import * as z from 'zod';
import { inputLimits } from '#shared/spec/limits';
import { boundedText, UserInputAnswers } from '#shared/spec/schemas';

const id = boundedText(inputLimits.id);
const secret = boundedText(inputLimits.secret);

export const CreateDepositRequest = z.object({
  appSecret: secret,
  userSecret: secret,
  /** Major units of the wallet account's currency. */
  amount: z.number().positive(),
  senderID: id,
  walletAccountID: id.optional(),
  /** Answers to the provider's question, sent with the same Idempotency-Key. */
  userInputs: UserInputAnswers.min(1).optional(),
});
export type CreateDepositRequest = z.infer<typeof CreateDepositRequest>;

export const GetDepositRequest = z.object({ appSecret: secret, userSecret: secret, operationID: id });
export type GetDepositRequest = z.infer<typeof GetDepositRequest>;

/** An Idempotency-Key: printable, at most 255 characters. */
export const IdempotencyKey = z
  .string()
  .regex(/^[\x21-\x7e]{1,255}$/, 'must be 1 to 255 printable ASCII characters');
