/**
 * Every caller hears: a change the caller must hear of carries its event in its
 * own write, and the relay sends on exactly the events of the versions the stream brings. One it
 * cannot send on goes whole to its DLQ, and is relayed again from there.
 */
import { marshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { depositOf, streamPositionOf } from '#shared/adapters/deposit-stream';
import {
  eventToRelay,
  type RelayContext,
  relayAgain,
  relayOrSetAside,
  relayTries,
  UnrelayedRecord,
} from '#shared/deposits/background/outbox';
import { transfer } from '#shared/deposits/steps/transfer';
import { FakeEventQueue } from '../support/deposit-fakes.ts';
import { answers, banks, eventFields, world } from '../support/deposit-world.ts';
import { ManualClock } from '../support/manual-clock.ts';

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
      data: {
        ...eventFields(deposit, done.updatedAt),
        status: 'done',
        step: 'completed',
        version: 4,
        reference: 'TRF1',
      },
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
  const position = { eventId: 'e-1', sequenceNumber: '000000000000000000042', streamArn: 'arn:stream' };

  /** The relay's ports: the notify queue refusing its first `refusals` sends, the DLQ, a manual clock. */
  function relay(refusals = 0, dlqRefuses = false) {
    const events = new FakeEventQueue();
    const setAside: UnrelayedRecord[] = [];
    const clock = new ManualClock();
    const sleeps: number[] = [];
    let refused = 0;
    const ctx: RelayContext = {
      events: {
        publish: async (sent) => {
          if (refused < refusals) {
            refused += 1;
            throw Object.assign(new Error('queue unreachable'), { name: 'ServiceUnavailable' });
          }
          await events.publish(sent);
        },
      },
      unrelayed: {
        setAside: async (record) => {
          if (dlqRefuses) throw new Error('the DLQ is unreachable too');
          setAside.push(structuredClone(record));
        },
      },
      clock: {
        now: () => clock.now(),
        sleep: async (ms) => {
          sleeps.push(ms);
          await clock.sleep(ms);
        },
      },
    };
    return { ctx, events, setAside, sleeps, tries: () => refused };
  }

  it('sends on the event each version carries, in order, and nothing for versions without one', async () => {
    const { ctx, events, setAside } = relay();

    for (const image of [
      { id: 'dep_1', version: 3, event: event('dep_1', 3) },
      { id: 'dep_1', version: 4 },
      { id: 'dep_2', version: 7, event: event('dep_2', 7) },
    ])
      expect(await relayOrSetAside(image, position, ctx, 30_000)).toBeUndefined();

    expect(events.published.map((sent) => sent.id)).toEqual(['dep_1.v3', 'dep_2.v7']);
    expect(setAside).toEqual([]);
  });

  it('tries a refused event again after a growing wait, and relays it when the queue takes it', async () => {
    const { ctx, events, setAside, sleeps } = relay(2);

    const outcome = await relayOrSetAside(
      { id: 'dep_1', version: 3, event: event('dep_1', 3) },
      position,
      ctx,
      30_000,
    );

    expect(outcome).toBeUndefined();
    expect(sleeps).toEqual([relayTries.firstDelayMs, 2 * relayTries.firstDelayMs]);
    expect(events.published.map((sent) => sent.id)).toEqual(['dep_1.v3']);
    expect(setAside).toEqual([]);
  });

  it('sets the record aside whole after its last try, and nothing else of the image', async () => {
    // prepare: a version as the stream brings it, with what a deposit item holds beyond its event
    const { ctx, events, setAside, tries } = relay(Number.POSITIVE_INFINITY);
    const image = {
      id: 'dep_1',
      version: 3,
      event: event('dep_1', 3),
      ownerKey: 'owner-digest',
      readerKey: 'reader-digest',
      sealedAnswers: 'sealed-answers',
      idempotencyKey: 'idem-1',
    };

    // act
    const outcome = await relayOrSetAside(image, position, ctx, 30_000);

    // assess
    expect(tries()).toBe(relayTries.tries);
    expect(events.published).toEqual([]);
    expect(setAside).toEqual([
      {
        depositId: 'dep_1',
        version: 3,
        eventId: 'dep_1.v3',
        event: event('dep_1', 3),
        stream: position,
        tries: relayTries.tries,
        error: 'ServiceUnavailable: queue unreachable',
        failedAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
      },
    ]);
    expect(outcome).toEqual(setAside[0]);
    expect(JSON.stringify(setAside)).not.toMatch(/digest|sealed|idem-1/);
  });

  it('waits into none of the time an invocation keeps to set aside the records after a failing one', async () => {
    const { ctx, setAside, sleeps } = relay(Number.POSITIVE_INFINITY);

    await relayOrSetAside(
      { id: 'dep_1', version: 3, event: event('dep_1', 3) },
      position,
      ctx,
      relayTries.reserveMs + relayTries.firstDelayMs - 1,
    );

    expect(sleeps).toEqual([]);
    expect(setAside.map((record) => record.tries)).toEqual([1]);
  });

  it('fails the record only when its DLQ refuses it too: the stream brings it again', async () => {
    const { ctx } = relay(Number.POSITIVE_INFINITY, true);

    await expect(
      relayOrSetAside({ id: 'dep_1', version: 3, event: event('dep_1', 3) }, position, ctx, 30_000),
    ).rejects.toThrow('the DLQ is unreachable too');
  });

  it('relays again a record redriven from its DLQ, and refuses one whose event is not its version’s', async () => {
    const { ctx, events } = relay();
    const record = UnrelayedRecord.parse({
      depositId: 'dep_1',
      version: 3,
      eventId: 'dep_1.v3',
      event: event('dep_1', 3),
      stream: position,
      tries: 3,
      error: 'ServiceUnavailable: queue unreachable',
      failedAt: '2026-11-23T12:00:01.000Z',
    });

    await relayAgain(record, ctx);
    await expect(relayAgain({ ...record, event: event('dep_1', 2) }, ctx)).rejects.toThrow(
      "another version's event",
    );

    expect(events.published.map((sent) => sent.id)).toEqual(['dep_1.v3']);
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
    const deposit = {
      id: 'dep_1',
      ownerKey: 'owner',
      readerKey: 'reader',
      idempotencyKey: 'key',
      fingerprint: 'f',
      status: 'done',
      step: 'completed',
      version: 3,
      amountMinor: 2550,
      currency: 'AED',
      senderId: 'acc-1',
      walletAccountId: 'wallet-aed',
      stepCounters: { retries: 0 },
      history: [],
      createdAt: 1,
      updatedAt: 2,
      event: event('dep_1', 3),
    } as const;
    const item = { pk: 'DEPOSIT#dep_1', sk: 'DEPOSIT', ...deposit };

    expect(depositOf(record(item))).toEqual(deposit);
    expect(depositOf(record({ pk: 'LEASE#x', sk: 'LEASE', holder: 'h' }))).toBeUndefined();
    expect(depositOf(record(item, 'REMOVE'))).toBeUndefined();
  });

  it('reads where the stream had a record', () => {
    const record = {
      eventID: 'e-1',
      eventSourceARN: 'arn:stream',
      dynamodb: { SequenceNumber: '000000000000000000042', ApproximateCreationDateTime: 1_795_000_000 },
    } as DynamoDBRecord;

    expect(streamPositionOf(record)).toEqual({
      ...position,
      writtenAt: new Date(1_795_000_000_000).toISOString(),
    });
  });
});
