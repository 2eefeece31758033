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

export const CancelDepositRequest = GetDepositRequest;
export type CancelDepositRequest = GetDepositRequest;

/** How many deposits a list answers at most, and by default. */
export const LIST_LIMIT = { max: 100, default: 20 };

export const ListDepositsRequest = z.object({
  appSecret: secret,
  userSecret: secret,
  limit: z.number().int().min(1).max(LIST_LIMIT.max).default(LIST_LIMIT.default),
  /** The `cursor` of the previous page's answer (an opaque string well under 512 characters). */
  cursor: boundedText(512).optional(),
});
export type ListDepositsRequest = z.infer<typeof ListDepositsRequest>;

/** An Idempotency-Key: printable, at most 255 characters. */
export const IdempotencyKey = z
  .string()
  .regex(/^[\x21-\x7e]{1,255}$/, 'must be 1 to 255 printable ASCII characters');
