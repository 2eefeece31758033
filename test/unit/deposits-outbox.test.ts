/**
 * Every caller hears (issue 9, defect 1): a change the caller must hear of carries its event in its
 * own write, and the relay sends on exactly the events of the versions the stream brings.
 */
import { marshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { depositOf } from '#shared/adapters/deposit-stream';
import { eventToRelay, relayEvents } from '#shared/deposits/outbox';
import { transfer } from '#shared/deposits/steps/transfer';
import { FakeEventQueue } from '../support/deposit-fakes.ts';
import { answers, banks, world } from '../support/deposit-world.ts';

describe('the outbox', () => {
  it('is written with the change itself: a step that dies right after its write still told the caller', async () => {
    // prepare
    const w = world();
    const ctx = w.contexts.transfer();
    const deposit = await w.deposit({
      step: 'transfer',
      version: 2,
      bank: banks.beneficiary,
      beneficiaryId: 'ben-1',
    });
    w.provider.answer('createTransfer', answers.done({ reference: 'TRF1' }));
    // fault: the step dies right after the write that makes the deposit done (before anything else)
    const save = ctx.deposits.save;
    ctx.deposits = {
      ...ctx.deposits,
      save: async (next, expected) => {
        const saved = await save(next, expected);
        if (next.status === 'done') throw new Error('the worker died');
        return saved;
      },
    };

    // act
    await expect(transfer(deposit, ctx)).rejects.toThrow('the worker died');

    // assess
    const done = w.table.current(deposit.id);
    expect(done.status).toBe('done');
    expect(done.event).toEqual({
      id: `${deposit.id}.v4`,
      type: 'deposit.done',
      depositId: deposit.id,
      occurredAt: new Date(done.updatedAt).toISOString(),
      data: { status: 'done', step: 'completed', version: 4, reference: 'TRF1' },
    });
  });

  it('holds only the event of its own version: a later change without one clears it', async () => {
    const w = world();
    const ctx = w.contexts.transfer();
    const deposit = await w.deposit({
      step: 'transfer',
      version: 2,
      bank: banks.beneficiary,
      beneficiaryId: 'ben-1',
    });
    w.provider.answer('createTransfer', answers.refusal('OPERATION_IN_PROGRESS'));

    await transfer(deposit, ctx);

    // The attempt record (v3) and the retry (v4) are not for the caller.
    expect(w.table.writes.map((write) => [write.version, write.event])).toEqual([
      [3, undefined],
      [4, undefined],
    ]);
  });
});

describe('the relay', () => {
  const event = (id: string, version: number) => ({
    id: `${id}.v${version}`,
    type: 'deposit.done' as const,
    depositId: id,
    occurredAt: '2026-11-23T12:00:00.000Z',
    data: { status: 'done' },
  });

  it('sends on the event each version carries, in order, and nothing for versions without one', async () => {
    const queue = new FakeEventQueue();

    const relayed = await relayEvents(
      [
        { id: 'dep_1', version: 3, event: event('dep_1', 3) },
        { id: 'dep_1', version: 4 },
        { id: 'dep_2', version: 7, event: event('dep_2', 7) },
      ],
      { events: queue },
    );

    expect(relayed).toBe(2);
    expect(queue.published.map((sent) => sent.id)).toEqual(['dep_1.v3', 'dep_2.v7']);
  });

  it('never sends an event on a version that is not its own', () => {
    expect(eventToRelay({ id: 'dep_1', version: 5, event: event('dep_1', 4) })).toBeUndefined();
    expect(eventToRelay({ id: 'dep_1', version: 5, event: event('dep_2', 5) })).toBeUndefined();
  });

  it('reads the deposit from a stream record, and nothing from the table other entities or removals', () => {
    const record = (item: Record<string, unknown>, eventName: DynamoDBRecord['eventName'] = 'MODIFY') =>
      ({
        eventName,
        dynamodb: { NewImage: marshall(item, { removeUndefinedValues: true }) },
      }) as DynamoDBRecord;
    const item = { pk: 'DEPOSIT#dep_1', sk: 'DEPOSIT', id: 'dep_1', version: 3, event: event('dep_1', 3) };

    expect(depositOf(record(item))).toEqual({ id: 'dep_1', version: 3, event: event('dep_1', 3) });
    expect(depositOf(record({ pk: 'LEASE#x', sk: 'LEASE', holder: 'h' }))).toBeUndefined();
    expect(depositOf(record(item, 'REMOVE'))).toBeUndefined();
  });
});
