/**
 * Payment sources: a connection prepared for deposits into a wallet account before the first one
 * (bank metadata, the beneficiary, its cool-down), so that no deposit waits a day. A source is a
 * record of the deposit's kind (`purpose: 'source'`) that runs the deposit's own steps, on the same
 * queues, leases, claims and wake-ups, and stops before the transfer (`steps/transfer.ts`): `done`
 * means ready. Here: how its caller sees it, and the events it hears.
 */

import type { Deposit } from './deposit.ts';
import type { DepositEvent } from './events.ts';
import { ownerMessage } from './failures.ts';
import { askedOf } from './views.ts';

export const SourceStatus = [
  'initialized',
  'user_input_required',
  'cooling_down',
  'ready',
  'failed',
] as const;
export type SourceStatus = (typeof SourceStatus)[number];

/** Where a source stands, as its caller reads it. */
export function sourceStatus(source: Pick<Deposit, 'status' | 'step'>): SourceStatus {
  if (source.status === 'done') return 'ready';
  if (source.status === 'initialized' && source.step === 'wait-cooldown') return 'cooling_down';
  return source.status;
}

/** The caller-facing view of a source. */
export function sourceView(source: Deposit) {
  const status = sourceStatus(source);
  return {
    sourceID: source.id,
    success: status !== 'failed',
    status,
    walletAccountID: source.walletAccountId,
    ...(source.bank ? { bankName: source.bank.bankName } : {}),
    ...(status === 'cooling_down' && source.cooldownUntil
      ? { readyAt: new Date(source.cooldownUntil).toISOString() }
      : {}),
    ...(source.status === 'user_input_required' && source.pendingInput
      ? {
          userInputs: askedOf(source.pendingInput.userInputs),
          inputExpiresAt: new Date(source.pendingInput.expiresAt).toISOString(),
        }
      : {}),
    ...(source.failure ? { type: source.failure.type, msg: ownerMessage(source.failure.type) } : {}),
    history: source.history.map((entry) => ({
      step: entry.step,
      status: sourceStatus(entry),
      at: new Date(entry.at).toISOString(),
      ...(entry.note ? { note: entry.note } : {}),
    })),
    createdAt: new Date(source.createdAt).toISOString(),
    updatedAt: new Date(source.updatedAt).toISOString(),
  };
}

const sourceEventTypes = {
  'deposit.user_input_required': 'source.user_input_required',
  'deposit.cooling_down': 'source.cooling_down',
  'deposit.done': 'source.ready',
  'deposit.failed': 'source.failed',
} as const satisfies Partial<Record<DepositEvent['type'], DepositEvent['type']>>;

/**
 * A step's event as a source's caller hears it: `source.*`, with the source's status, and the end of
 * its cool-down as `readyAt`.
 */
export function asSourceEvent(event: DepositEvent, source: Deposit): DepositEvent {
  const type = sourceEventTypes[event.type as keyof typeof sourceEventTypes] ?? event.type;
  const { resumesAt, ...data } = event.data;
  return {
    ...event,
    type,
    data: {
      ...data,
      status: sourceStatus(source),
      ...(resumesAt === undefined ? {} : { readyAt: resumesAt }),
    },
  };
}
