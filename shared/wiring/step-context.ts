/**
 * A step's context, built from its line in `shared/deposits/reach.ts` and nothing else: each port
 * the line names, once per process (the type is the domain's `StepContext`, from the same line).
 */
import type { Reach } from '#shared/deposits/reach';
import { reach } from '#shared/deposits/reach';
import type { StepContext, StepName } from '#shared/deposits/step-context';
import { queuesOf, schedulerOf } from './messaging.ts';
import { credentialVault, providerClient, wallets } from './steps.ts';
import { tableEntities } from './table.ts';
import { transitionPorts } from './transitions.ts';

export function stepContext<H extends StepName>(name: H): StepContext<H> {
  const line: Reach = reach[name];
  const queues = queuesOf(name);
  const sharedWakes = line.sharedWakes?.length ? tableEntities.sharedWakes() : undefined;
  const context = {
    // A step that opens the credentials reads them with its deposit, in the same request.
    ...transitionPorts({ withCredentials: line.credentials === 'open' }),
    queues,
    ...(line.wakes.length ? { scheduler: schedulerOf(name) } : {}),
    ...(line.leases ? { leases: tableEntities.leases() } : {}),
    ...(line.claims?.length ? { claims: tableEntities.claims() } : {}),
    ...(line.banks?.length ? { banks: tableEntities.banks() } : {}),
    ...(sharedWakes ? { sharedWakes } : {}),
    // A step that may fail a payment source hands its followers on through these.
    ...(sharedWakes && line.sharedWakes?.includes('take') ? { followers: { sharedWakes, queues } } : {}),
    ...(line.credentials === 'open' ? { vault: credentialVault() } : {}),
    ...(line.provider?.length ? { provider: providerClient() } : {}),
    ...(line.wallets ? { wallets: wallets() } : {}),
  };
  // The type follows the same line (`StepContext`); what TypeScript cannot follow at run time is
  // checked by the unit test of this function.
  return context as unknown as StepContext<H>;
}
