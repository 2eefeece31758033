/** The event a version of a deposit produces for its caller (its outbox), as the notify queue carries it. No AWS here. */
import * as z from 'zod';

/** What the caller of the deposits API hears about (webhooks), as it travels on the notify queue. */
export const DepositEvent = z.object({
  /** `<depositId>.v<version>`: the same event delivered twice has the same id. */
  id: z.string().min(1),
  type: z.enum([
    'deposit.user_input_required',
    'deposit.cooling_down',
    'deposit.done',
    'deposit.failed',
    'source.user_input_required',
    'source.cooling_down',
    'source.ready',
    'source.failed',
  ]),
  depositId: z.string().min(1),
  occurredAt: z.string(),
  data: z.record(z.string(), z.unknown()),
});
export type DepositEvent = z.infer<typeof DepositEvent>;
