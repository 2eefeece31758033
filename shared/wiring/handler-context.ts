/**
 * A handler's context, built from its line in `shared/deposits/reach.ts` and nothing else: each port
 * the line names, once per process. Its type, `HandlerContext`, follows the same line: the deposit
 * domain's ports (`DepositsContext`) and the operator's (`OperatorContext`).
 */
import { depositMetrics } from '#shared/adapters/metrics';
import { systemClock } from '#shared/clock';
import { resolveConfig } from '#shared/config';
import { type Reach, type ReachName, reach } from '#shared/deposits/reach';
import type { DepositsContext } from '#shared/deposits/step-context';
import type { OperatorContext } from '#shared/operator/context';
import { currentTrace } from '#shared/tracing';
import {
  depositEvents,
  queueDepths,
  queuesOf,
  scheduleCancels,
  schedulerOf,
  unrelayedEvents,
} from './messaging.ts';
import { ownerDigests } from './owner-digests.ts';
import { credentialVault, providerClient, wallets } from './steps.ts';
import { depositSettings, tableEntities } from './table.ts';

/** What handler `H` is given: exactly the ports its line of `reach.ts` names, and the clock. */
export type HandlerContext<H extends ReachName> = DepositsContext<H> & OperatorContext<H>;

export async function handlerContext<H extends ReachName>(name: H): Promise<HandlerContext<H>> {
  const line: Reach = reach[name];
  const queues = line.sends.length ? queuesOf(name) : undefined;
  const sharedWakes = line.sharedWakes?.length ? tableEntities.sharedWakes() : undefined;
  const byStatus = line.statusIndex ? tableEntities.byStatus() : undefined;
  const context = {
    clock: systemClock,
    // A handler that opens the credentials reads them with its deposit, in the same request.
    ...(line.deposits
      ? { deposits: tableEntities.deposits({ withCredentials: line.credentials === 'open' }) }
      : {}),
    ...(line.deposits === 'write' || line.dueIndex ? { settings: depositSettings() } : {}),
    ...(line.deposits === 'write' ? { observer: depositMetrics } : {}),
    // A deposit keeps the trace of the request that created it.
    ...(line.idempotency ? { idempotency: tableEntities.idempotency(), trace: currentTrace } : {}),
    ...(queues ? { queues } : {}),
    ...(line.wakes.length ? { scheduler: schedulerOf(name) } : {}),
    ...(line.unschedules ? { schedules: scheduleCancels() } : {}),
    // A handler that frees a lease wakes the deposit waiting for it through these.
    ...(line.leases ? { leases: tableEntities.leases(), leaseWaiters: queues } : {}),
    ...(line.claims?.length ? { claims: tableEntities.claims() } : {}),
    ...(line.banks?.length ? { banks: tableEntities.banks() } : {}),
    ...(sharedWakes ? { sharedWakes } : {}),
    // A handler that may fail a payment source hands its followers on through these.
    ...(sharedWakes && queues && line.sharedWakes?.includes('take')
      ? { followers: { sharedWakes, queues } }
      : {}),
    ...(line.credentials ? { vault: credentialVault() } : {}),
    ...(line.provider?.length ? { provider: providerClient() } : {}),
    ...(line.wallets ? { wallets: wallets() } : {}),
    ...(line.ownerKeys ? { ownerDigests: await ownerDigests() } : {}),
    ...(line.dueIndex ? { due: tableEntities.due() } : {}),
    ...(line.ownerIndex ? { owners: tableEntities.owners() } : {}),
    ...(line.backendIndex ? { backends: tableEntities.backends() } : {}),
    ...(byStatus ? { byStatus, times: byStatus } : {}),
    ...(line.queueDepths ? { depths: queueDepths() } : {}),
    ...(line.approvals ? { approvalAbove: resolveConfig().RESOLVE_APPROVAL_ABOVE } : {}),
    ...(line.deliveries ? { deliveries: tableEntities.deliveries() } : {}),
    ...(line.deliveries === 'resend' || line.relays ? { events: depositEvents() } : {}),
    ...(line.relays === 'stream' ? { unrelayed: unrelayedEvents() } : {}),
  };
  // The type follows the same line (`HandlerContext`); what TypeScript cannot follow at run time is
  // checked by the unit test of this function.
  return context as unknown as HandlerContext<H>;
}
