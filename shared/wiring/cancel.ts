/** What the cancel routes (the owner's of a deposit or a source, an operator's) build: the ports of `CancelContext`. */
import { systemClock } from '#shared/clock';
import type { CancelContext } from '#shared/deposits/cancel';
import { scheduleCancels } from './messaging.ts';
import { failPorts } from './transitions.ts';

export function cancelPorts(name: 'cancel' | 'cancelSource' | 'operator-cancel'): CancelContext {
  return {
    ...failPorts(name),
    schedules: scheduleCancels(),
    clock: systemClock,
  };
}
