/**
 * The webhook events a caller hears (docs/deposits.md, "Webhooks"), as they travel: `{ type,
 * timestamp, data }`, a union on `type`. What `shared/deposits/journey/transitions.ts` (`eventOf`) and
 * `sources.ts` (`asSourceEvent`) write and the notifier signs; the typed client's verifier
 * (`shared/deposits-api/webhooks.ts`) checks each delivery against it. Objects are not strict: a
 * field a newer service adds is kept, not refused.
 */
import * as z from 'zod';
import { DepositStep } from '#shared/deposits/model/deposit';
import { UserInput } from '#shared/provider/interface/schemas';
import { FailureType } from './deposits-schemas.ts';

const instant = z.iso.datetime();

/** Every event's data: where it stands, the version that made it (order a deposit's events by it) and its times. */
const stands = {
  step: DepositStep,
  version: z.number().int().nonnegative(),
  createdAt: instant,
  updatedAt: instant,
};

/** A deposit's event also carries the money and the caller's own fields, to book it without a read. */
const deposit = {
  ...stands,
  depositId: z.string(),
  amount: z.number(),
  currency: z.string().length(3),
  /** The user's bank account the money comes from. */
  senderID: z.string(),
  clientReference: z.string().optional(),
  metadata: z.record(z.string(), z.string()).optional(),
};

/** A payment source's event: its id and times (a source moves no money). */
const source = { ...stands, sourceId: z.string() };

const asking = {
  status: z.literal('user_input_required'),
  userInputs: z.array(UserInput),
  inputExpiresAt: instant,
};
const failing = { status: z.literal('failed'), type: FailureType, msg: z.string() };
/** An operator settled the deposit's unknown transfer outcome (the operator API's resolve). */
const resolved = { resolved: z.literal(true).optional() };

function event<T extends string, D extends z.ZodRawShape>(type: T, data: D) {
  return z.object({ type: z.literal(type), timestamp: instant, data: z.object(data) });
}

export const WebhookEvent = z.discriminatedUnion('type', [
  /** The bank asks a question: answer it (`POST /v1/deposits/answer`) before `inputExpiresAt`. */
  event('deposit.user_input_required', { ...deposit, ...asking }),
  /** The deposit waits for the beneficiary's cool-down, until `resumesAt`. */
  event('deposit.cooling_down', { ...deposit, status: z.literal('initialized'), resumesAt: instant }),
  /** The money moved, under the bank's `reference`. */
  event('deposit.done', { ...deposit, status: z.literal('done'), reference: z.string(), ...resolved }),
  event('deposit.failed', { ...deposit, ...failing, ...resolved }),
  event('source.user_input_required', { ...source, ...asking }),
  /** Deposits into the wallet account go straight to the transfer from `readyAt`. */
  event('source.cooling_down', { ...source, status: z.literal('cooling_down'), readyAt: instant }),
  event('source.ready', { ...source, status: z.literal('ready') }),
  event('source.failed', { ...source, ...failing }),
]);
export type WebhookEvent = z.infer<typeof WebhookEvent>;
