/** What changing and failing a deposit needs, for every handler that does either. */
import { depositMetrics } from '#shared/adapters/metrics';
import { systemClock } from '#shared/clock';
import type { FailContext, TransitionContext } from '#shared/deposits/transitions';
import { depositEvents } from './messaging.ts';
import { depositSettings, tableEntities } from './table.ts';

/** What every change of state needs: the deposit records, the clock, the settings, the metric. */
export function transitionPorts(): TransitionContext {
  return {
    deposits: tableEntities.deposits(),
    clock: systemClock,
    settings: depositSettings(),
    observer: depositMetrics,
  };
}

/** What failing a deposit needs besides: the caller's events and the connection's lease. */
export function failPorts(): FailContext {
  return { ...transitionPorts(), events: depositEvents(), leases: tableEntities.leases() };
}
