/**
 * What the create routes (a deposit's, a payment source's) build: the ports of `StartContext`; and
 * the answer route, which resumes a deposit as a repeated create does (`AnswerContext`).
 */
import type { AnswerContext } from '#shared/deposits/requests/answer';
import type { StartContext } from '#shared/deposits/requests/start';
import { currentTrace } from '#shared/tracing';
import { queuesOf } from './messaging.ts';
import { ownerDigests } from './owner-digests.ts';
import { credentialVault, wallets } from './steps.ts';
import { tableEntities } from './table.ts';
import { failPorts } from './transitions.ts';

export async function startPorts(name: 'create' | 'createSource'): Promise<StartContext> {
  return {
    ...failPorts(name),
    idempotency: tableEntities.idempotency(),
    banks: tableEntities.banks(),
    vault: credentialVault(),
    wallets: wallets(),
    queues: queuesOf(name),
    ownerDigests: await ownerDigests(),
    trace: currentTrace,
  };
}

export async function answerPorts(): Promise<AnswerContext> {
  return {
    ...failPorts('answer'),
    vault: credentialVault(),
    queues: queuesOf('answer'),
    ownerDigests: await ownerDigests(),
  };
}
