/**
 * The operator's reads, through the fakes: the status buckets (an unknown transfer outcome has its
 * own until resolved), the deposits table's item carrying its bucket for the index, any deposit as
 * an operator sees it (and nothing secret), a bucket's deposits newest first by step, time range
 * and cursor, the queues' depths. The route that takes the operator's identity:
 * operator-route.test.ts.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { depositItem, fromItem } from '#shared/adapters/deposits-table-items';
import { ListRequest } from '#shared/contracts/operator-schemas';
import type { Deposit } from '#shared/deposits/model/deposit';
import { logger } from '#shared/logger';
import { statusBucket } from '#shared/operator/model';
import { getDeposit, listByStatus, readQueues } from '#shared/operator/read';
import { banks, world } from '../support/deposit-world.ts';
import { FixedQueueDepths, fakeStatusIndex } from '../support/operator-fakes.ts';
import { refusal } from '../support/refusal.ts';

beforeAll(() => logger.setLogLevel('SILENT'));

const unknown = { type: 'TRANSFER_OUTCOME_UNKNOWN', msg: 'timeout' };
const failedUnknown: Partial<Deposit> = { status: 'failed', step: 'completed', failure: unknown };

describe('status buckets', () => {
  it('puts an unresolved unknown transfer outcome in its own bucket, the other failures in failed', () => {
    expect(statusBucket({ status: 'initialized' })).toBe('initialized');
    expect(statusBucket({ status: 'failed', failure: unknown })).toBe('outcome_unknown');
    expect(statusBucket({ status: 'failed', failure: { type: 'CANCELLED', msg: 'x' } })).toBe('failed');
    const resolution = { outcome: 'failed' as const, by: 'ops', reason: 'r', at: 1 };
    expect(statusBucket({ status: 'failed', failure: unknown, resolution })).toBe('failed');
    expect(statusBucket({ status: 'done', resolution: { ...resolution, outcome: 'done' } })).toBe('done');
  });

  it('the deposit item carries its bucket for the byStatus index, and reading it back drops it', async () => {
    const w = world();
    const deposit = await w.deposit(failedUnknown);

    const item = depositItem(deposit);

    expect(item.opsBucket).toMatch(/^outcome_unknown#\d+$/);
    // Its sealed credentials, if any, live in an item of their own (`sealedItem`).
    const { sealedCredentials: _sealed, ...rest } = deposit;
    expect(fromItem<Deposit>(item)).toEqual(rest);
  });
});

describe('get', () => {
  it('shows any deposit with where it stands, and nothing secret', async () => {
    const w = world();
    const deposit = await w.deposit({
      step: 'transfer',
      bank: banks.beneficiary,
      beneficiaryId: 'ben-1',
      cooldownUntil: w.clock.now() - 1_000,
      transfer: {
        attempt: { at: w.clock.now(), answering: false },
        operationId: 'op-7',
        polls: 2,
        pollAt: w.clock.now() + 4_000,
      },
      beneficiaryWork: { sleepsUntil: w.clock.now() + 9_000, claimWaits: 1 },
      stepCounters: { retries: 2, busyWaits: 3 },
      tallies: { reasks: 1, coolDownRefusals: 1 },
      redrives: 1,
      version: 4,
    });

    const body = await getDeposit({ depositId: deposit.id }, { deposits: w.table.deposits, clock: w.clock });

    expect(body).toMatchObject({
      operationID: deposit.id,
      status: 'initialized',
      step: 'transfer',
      version: 4,
      connection: deposit.ownerKey.slice(0, 12),
      bankName: 'Sandbox Bank',
      beneficiaryId: 'ben-1',
      // flat, as the operator API has always shown them, whatever groups the item keeps them in
      retries: 2,
      busyWaits: 3,
      reasks: 1,
      coolDownRefusals: 1,
      redrives: 1,
      coolDownUntil: new Date(deposit.cooldownUntil ?? 0).toISOString(),
      sleepsUntil: new Date(w.clock.now() + 9_000).toISOString(),
      checkAt: new Date(deposit.checkAt ?? 0).toISOString(),
      transferAttempt: { at: new Date(w.clock.now()).toISOString(), answering: false },
      transferOperationId: 'op-7',
      polls: 2,
      pollAt: new Date(w.clock.now() + 4_000).toISOString(),
      history: [{ step: 'transfer', status: 'initialized', at: new Date(w.clock.now()).toISOString() }],
    });
    const text = JSON.stringify(body);
    expect(text).not.toContain(deposit.ownerKey);
    expect(text).not.toContain(deposit.readerKey);
    expect(text).not.toContain('sealed');
    expect(text).not.toContain(deposit.idempotencyKey);
  });

  it('answers 404 DEPOSIT_NOT_FOUND for an unknown id', async () => {
    const w = world();
    const error = await refusal(
      getDeposit({ depositId: 'dep_none' }, { deposits: w.table.deposits, clock: w.clock }),
    );
    expect(error).toMatchObject({ type: 'DEPOSIT_NOT_FOUND' });
  });
});

describe('list by status', () => {
  async function many(w: ReturnType<typeof world>) {
    const made: Deposit[] = [];
    for (let index = 0; index < 7; index += 1) {
      w.clock.advance(60_000);
      made.push(await w.deposit({ step: index % 2 ? 'transfer' : 'resolve-bank' }));
    }
    w.clock.advance(60_000);
    await w.deposit(failedUnknown);
    await w.deposit({ status: 'failed', step: 'completed', failure: { type: 'STEP_FAILED', msg: 'x' } });
    return made;
  }
  const list = (w: ReturnType<typeof world>, body: Record<string, unknown>) =>
    listByStatus(ListRequest.parse(body), { byStatus: fakeStatusIndex(w.table), clock: w.clock });

  it("pages through a bucket's deposits newest first, by cursor, every one once", async () => {
    const w = world();
    const made = await many(w);

    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const body = await list(w, { status: 'initialized', limit: 3, ...(cursor ? { cursor } : {}) });
      seen.push(...body.deposits.map((deposit) => deposit.operationID));
      cursor = body.cursor;
      pages += 1;
    } while (cursor);

    expect(pages).toBe(3);
    expect(seen).toEqual(made.map((deposit) => deposit.id).reverse());
  });

  it('filters by step and by creation time (from inclusive, to exclusive)', async () => {
    const w = world();
    const made = await many(w);
    const at = (deposit: Deposit | undefined) => new Date(deposit?.createdAt ?? 0).toISOString();

    const atTransfer = await list(w, { status: 'initialized', step: 'transfer' });
    const ranged = await list(w, { status: 'initialized', from: at(made[2]), to: at(made[5]) });

    expect(atTransfer.deposits.map((d) => d.operationID)).toEqual(
      made
        .filter((d) => d.step === 'transfer')
        .map((d) => d.id)
        .reverse(),
    );
    expect(ranged.deposits.map((d) => d.operationID)).toEqual([made[4]?.id, made[3]?.id, made[2]?.id]);
  });

  it('lists the unknown outcomes apart from the other failures', async () => {
    const w = world();
    await many(w);

    const unknowns = await list(w, { status: 'outcome_unknown' });
    const failures = await list(w, { status: 'failed' });

    expect(unknowns.deposits.map((d) => d.type)).toEqual(['TRANSFER_OUTCOME_UNKNOWN']);
    expect(failures.deposits.map((d) => d.type)).toEqual(['STEP_FAILED']);
  });

  it("refuses a cursor that is not this list's: garbage, another bucket's, outside the range", async () => {
    const w = world();
    const made = await many(w);
    const body = await list(w, { status: 'initialized', limit: 2 });
    const cursor = body.cursor ?? '';

    const garbage = await refusal(list(w, { status: 'initialized', cursor: 'not-a-cursor' }));
    const otherBucket = await refusal(list(w, { status: 'done', cursor }));
    const outside = await refusal(
      list(w, { status: 'initialized', cursor, to: new Date(made[0]?.createdAt ?? 0).toISOString() }),
    );

    for (const error of [garbage, otherBucket, outside]) {
      expect(error).toMatchObject({ type: 'INVALID_CURSOR' });
    }
  });

  it('refuses a status it does not know, a limit past 100, and a range that ends before it starts', () => {
    expect(ListRequest.safeParse({ status: 'lost' }).success).toBe(false);
    expect(ListRequest.safeParse({ status: 'done', limit: 101 }).success).toBe(false);
    const backwards = { status: 'done', from: '2026-11-02T00:00:00Z', to: '2026-11-01T00:00:00Z' };
    expect(ListRequest.safeParse(backwards).success).toBe(false);
    expect(ListRequest.parse({ status: 'done' }).limit).toBe(50);
  });
});

describe('queues', () => {
  it('answers the depths the port reads', async () => {
    const depths = [
      { name: 'transfer', visible: 2, inFlight: 1, delayed: 0, dlq: { name: 'transfer-dlq', visible: 3 } },
    ];
    expect(await readQueues({ depths: new FixedQueueDepths(depths) })).toEqual({ queues: depths });
  });
});
