/** The deposits API's requests. It follows the spec's conventions: secrets in the body, bearer token. */
import * as z from 'zod';
import { UserInput } from '#shared/spec/schemas';

const text = z.string().trim().min(1);

export const CreateDepositRequest = z.object({
  appSecret: text,
  userSecret: text,
  /** Major units of the wallet account's currency. */
  amount: z.number().positive(),
  senderID: text,
  walletAccountID: text.optional(),
  /** Answers to the provider's question, sent with the same Idempotency-Key. */
  userInputs: z.array(UserInput).min(1).optional(),
});
export type CreateDepositRequest = z.infer<typeof CreateDepositRequest>;

export const GetDepositRequest = z.object({ appSecret: text, userSecret: text, operationID: text });
export type GetDepositRequest = z.infer<typeof GetDepositRequest>;

/** An Idempotency-Key: printable, at most 255 characters. */
export const IdempotencyKey = z
  .string()
  .regex(/^[\x21-\x7e]{1,255}$/, 'must be 1 to 255 printable ASCII characters');
