/** What the cancel routes (the owner's of a deposit or a source, an operator's) build: the ports of `CancelContext`. */
import { systemClock } from '#shared/clock';
import type { CancelContext, OwnerCancelContext } from '#shared/deposits/requests/cancel';
import { scheduleCancels } from './messaging.ts';
import { ownerDigests } from './owner-digests.ts';
import { failPorts } from './transitions.ts';

export function cancelPorts(name: 'cancel' | 'cancelSource' | 'operator-cancel'): CancelContext {
  return {
    ...failPorts(name),
    schedules: scheduleCancels(),
    clock: systemClock,
  };
}

/** The owner's cancel: the same, and the owner digests that find the caller's own (the operator's needs none). */
export async function ownerCancelPorts(name: 'cancel' | 'cancelSource'): Promise<OwnerCancelContext> {
  return { ...cancelPorts(name), ownerDigests: await ownerDigests() };
}
