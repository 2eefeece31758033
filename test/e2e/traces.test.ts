/**
 * One deposit, one trace, over real HTTP against the local stack: the trace its create ran in is the
 * one every step's consumer, the outbox relay and the webhook's deliverer work it in (the messages
 * carry it: a step message's body and `AWSTraceHeader`, a schedule's message, the relay's message to
 * the webhook queue). The local stack's journal (`POST /_local/traces`) says which function worked on
 * the deposit in which trace.
 */
import { describe, expect, it } from 'vitest';
import { depositsUrl, depositWhen, startDeposit, stepsOf, webhookDeliveries } from '../support/deposits.ts';
import { createUser, eventually } from '../support/sandbox.ts';

interface TraceEntry {
  functionName: string;
  traceId: string | undefined;
}

async function tracesOf(depositId: string): Promise<TraceEntry[]> {
  const response = await fetch(`${depositsUrl}/_local/traces`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ depositId }),
  });
  if (!response.ok) throw new Error(`traces not read: ${response.status}`);
  return ((await response.json()) as { entries: TraceEntry[] }).entries;
}

describe('traces', () => {
  it("keeps a deposit's create, its steps (a schedule's wake-up among them) and its webhook in one trace", async () => {
    // prepare: a bank with a short cool-down, so that one step is woken by a schedule
    const user = await createUser('SANDBOX_COOLDOWN_FAST');

    // act
    const started = await startDeposit(user, { amount: 30 });
    const id = started.body.operationID;
    const done = await depositWhen(user, id, undefined, 25_000);
    await eventually(
      async () =>
        (await webhookDeliveries(id)).deliveries.some((delivery) => delivery.type === 'deposit.done') ||
        undefined,
    );
    // The deliverer's entry is written as it delivers: read once the relay's and the deliverer's are in.
    const entries = await eventually(async () => {
      const all = await tracesOf(id);
      return all.some((entry) => entry.functionName.includes('notify')) ? all : undefined;
    });

    // assess
    expect(done.status).toBe('done');
    const steps = stepsOf(done).filter((step) => step !== 'completed');
    expect(steps).toContain('wait-cooldown');
    const names = entries.map((entry) => entry.functionName);
    for (const part of ['create', ...steps, 'outbox', 'notify'])
      expect(
        names.some((name) => name.includes(part)),
        `${part} in ${names.join(', ')}`,
      ).toBe(true);
    const traceIds = new Set(entries.map((entry) => entry.traceId));
    expect([...traceIds], JSON.stringify(entries)).toEqual([
      expect.stringMatching(/^1-[0-9a-f]{8}-[0-9a-f]{24}$/),
    ]);
  });
});
