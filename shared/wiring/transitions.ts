/** What changing and failing a deposit needs, for every handler that does either. */
import { depositMetrics } from '#shared/adapters/metrics';
import { systemClock } from '#shared/clock';
import type { FailContext, TransitionContext } from '#shared/deposits/transitions';
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

/** What failing a deposit needs besides: the connection's lease (its event rides on its write). */
export function failPorts(): FailContext {
  return { ...transitionPorts(), leases: tableEntities.leases() };
}
