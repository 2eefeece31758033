/** What changing and failing a deposit needs, for every handler that does either. */
import { depositMetrics } from '#shared/adapters/metrics';
import { systemClock } from '#shared/clock';
import type { FailContext, TransitionContext } from '#shared/deposits/journey/transitions';
import type { ReachName, SendsOf } from '#shared/deposits/reach';
import { queuesOf } from './messaging.ts';
import { depositSettings, tableEntities } from './table.ts';

/**
 * What every change of state needs: the deposit records, the clock, the settings, the metric. A
 * handler that opens credentials reads them with each deposit (`withCredentials`).
 */
export function transitionPorts(options: { withCredentials?: boolean } = {}): TransitionContext {
  return {
    deposits: tableEntities.deposits(options),
    clock: systemClock,
    settings: depositSettings(),
    observer: depositMetrics,
  };
}

/**
 * The handlers that may fail a deposit: each reaches the queues that wake a failed payment source's
 * followers (the transfer's and ensure-beneficiary's), so that every path that ends a source hands
 * its followers on.
 */
export type FailingHandler = {
  [H in ReachName]: 'transfer' | 'ensure-beneficiary' extends SendsOf<H> ? H : never;
}[ReachName];

/**
 * What failing a deposit needs besides: the connection's lease, the beneficiary claim, and a
 * source's followers (its event rides on its write).
 */
export function failPorts<H extends FailingHandler>(name: H) {
  return {
    ...transitionPorts(),
    leases: tableEntities.leases(),
    claims: tableEntities.claims(),
    followers: { sharedWakes: tableEntities.sharedWakes(), queues: queuesOf(name) },
  } satisfies FailContext;
}
