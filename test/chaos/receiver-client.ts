/**
 * The chaos harness's calls to its webhook receiver: refuse deliveries for a while (of all deposits,
 * or of one), count the refusals, and list what was delivered (each delivery's signature checked).
 */
import type { Delivery as ReceivedDelivery } from '../support/webhook-receiver.ts';
import { send } from './http.ts';

/** A delivery as the receiver lists it; the audit needs no arrival time. */
export type Delivery = Omit<ReceivedDelivery, 'receivedAt'>;

export function receiverClient(webhookUrl: string) {
  return {
    /** The receiver refuses the next `count` deliveries (of one deposit, or of any). */
    async refuseDeliveries(count: number, depositId?: string) {
      const reply = await send('POST', `${webhookUrl}/fail`, { count, ...(depositId ? { depositId } : {}) });
      if (reply.status !== 200) throw new Error(`receiver not told to fail: ${reply.status}`);
    },

    /** How many deliveries the receiver has refused so far; of one deposit when it is named. */
    async refusedDeliveries(depositId = '-') {
      const reply = await send('GET', `${webhookUrl}/deliveries?depositId=${encodeURIComponent(depositId)}`);
      return Number(depositId === '-' ? reply.body.refused : reply.body.refusedForDeposit);
    },

    async deliveries() {
      const reply = await send('GET', `${webhookUrl}/deliveries`);
      return reply.body as { deliveries: Delivery[]; refused: number };
    },
  };
}
