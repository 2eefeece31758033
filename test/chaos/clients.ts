/**
 * How the chaos harness reaches the local stack: `clientsFor` gathers, in one object, the calls of
 * each part it talks to, each in its own module:
 *
 *   sandbox-client.ts    the provider sandbox: banks, users, fault rules, ledgers, beneficiaries
 *   deposits-client.ts   the deposits API: create and read a deposit
 *   local-controls.ts    the local stack past its APIs: crash points, schedules, the step queues
 *                        and the deposits table
 *   receiver-client.ts   the webhook receiver: refusals and deliveries
 *   operator-client.ts   the operator API: redrive, resolve
 *
 * (`http.ts` is how they call.) No vitest here: `npm run chaos` runs it as a plain script.
 */
import type { LocalStack } from '#infra/local/stack';
import { depositsClient } from './deposits-client.ts';
import { localControls } from './local-controls.ts';
import { operatorClient } from './operator-client.ts';
import { receiverClient } from './receiver-client.ts';
import { sandboxClient } from './sandbox-client.ts';

export type { Reply } from './http.ts';
export type { DepositItem, StepMessage, TableItem } from './local-controls.ts';
export type { Delivery } from './receiver-client.ts';
export type { Connection } from './sandbox-client.ts';

export function clientsFor(stack: LocalStack, webhookUrl: string, appSecret: string) {
  return {
    ...sandboxClient(stack, appSecret),
    ...depositsClient(stack, appSecret),
    ...localControls(stack),
    ...receiverClient(webhookUrl),
    operator: operatorClient(stack),
  };
}

export type Clients = ReturnType<typeof clientsFor>;
