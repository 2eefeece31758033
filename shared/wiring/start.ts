/** What the create routes (a deposit's, a payment source's) build: the ports of `StartContext`. */
import type { StartContext } from '#shared/deposits/start';
import { queuesOf } from './messaging.ts';
import { credentialVault, wallets } from './steps.ts';
import { tableEntities } from './table.ts';
import { failPorts } from './transitions.ts';

export function startPorts(name: 'create' | 'createSource'): StartContext {
  return {
    ...failPorts(name),
    idempotency: tableEntities.idempotency(),
    vault: credentialVault(),
    wallets: wallets(),
    queues: queuesOf(name),
  };
}
