/**
 * Four eyes on money that moved: a resolution to `done` of a deposit above its currency's approval
 * threshold (minor units) is recorded as pending, one conditional write and no event; a second,
 * different operator approving the same outcome and reference applies it (the one write with its
 * event); its proposer cannot approve it, another operator who disagrees is refused, and a pending
 * approval lapses after a day. `failed`, and `done` at or below the threshold, apply at once.
 */
import { describe, expect, it } from 'vitest';
import type { Deposit } from '#shared/deposits/model/deposit';
import { APPROVAL_TTL_MS, ApprovalThresholds } from '#shared/operator/approval';
import type { OperatorError } from '#shared/operator/errors';
import { statusBucket } from '#shared/operator/model';
import { type Resolve, resolveDeposit } from '#shared/operator/resolve';
import { settings, world } from '../support/deposit-world.ts';
import { refusal } from '../support/refusal.ts';

type World = ReturnType<typeof world>;
const ana = 'arn:aws:iam::123456789012:user/ops-ana';
const bo = 'arn:aws:iam::123456789012:user/ops-bo';
/** AED 1,000.00 and KWD 100.000, in minor units: the currencies' exponents differ. */
const approvalAbove = { AED: 100_000, KWD: 100_000 };

const unknown = (overrides: Partial<Deposit> = {}): Partial<Deposit> => ({
  status: 'failed',
  step: 'completed',
  failure: { type: 'TRANSFER_OUTCOME_UNKNOWN', msg: 'timeout; a transfer attempt is on record' },
  transfer: { attempt: { at: 0, answering: false } },
  sealedCredentials: undefined,
  checkAt: undefined,
  version: 5,
  // AED 2,500.00: above AED 1,000.00
  amountMinor: 250_000,
  ...overrides,
});

const resolving = (w: World) => ({
  deposits: w.table.deposits,
  clock: w.clock,
  settings,
  observer: w.observer,
  approvalAbove,
});

const done = (depositId: string, who: string, reference = 'TRX-7'): Resolve => ({
  depositId,
  outcome: 'done',
  reference,
  reason: `${who} found it on the statement`,
  who,
});

describe('a resolution to done above the threshold', () => {
  it('is recorded as pending: who, reference, reason and when, in one conditional write, and no event', async () => {
    const w = world();
    const deposit = await w.deposit(unknown());
    w.clock.advance(60_000);

    const body = await resolveDeposit(done(deposit.id, ana), resolving(w));

    const stored = w.table.current(deposit.id);
    expect(w.table.writes).toHaveLength(1);
    expect(stored).toMatchObject({
      version: 6,
      status: 'failed',
      failure: { type: 'TRANSFER_OUTCOME_UNKNOWN' },
      pendingResolution: {
        outcome: 'done',
        reference: 'TRX-7',
        by: ana,
        reason: `${ana} found it on the statement`,
        at: w.clock.now(),
      },
    });
    expect(stored.resolution).toBeUndefined();
    expect(stored.event).toBeUndefined();
    // Its owner reads nothing new: no history note, and the deposit waits in the operators' bucket.
    expect(stored.history).toEqual(deposit.history);
    expect(statusBucket(stored)).toBe('outcome_unknown');
    expect(w.events.published).toEqual([]);
    expect(body).toMatchObject({
      status: 'failed',
      type: 'TRANSFER_OUTCOME_UNKNOWN',
      pendingResolution: {
        outcome: 'done',
        reference: 'TRX-7',
        by: ana,
        at: new Date(w.clock.now()).toISOString(),
        expiresAt: new Date(w.clock.now() + APPROVAL_TTL_MS).toISOString(),
      },
    });
  });

  it('is applied when a second, different operator approves the same outcome and reference: one write, with its event', async () => {
    const w = world();
    const deposit = await w.deposit(unknown());
    await resolveDeposit(done(deposit.id, ana), resolving(w));
    const proposedAt = w.clock.now();
    w.clock.advance(600_000);

    const body = await resolveDeposit(done(deposit.id, bo), resolving(w));

    const stored = w.table.current(deposit.id);
    expect(w.table.writes).toHaveLength(2);
    expect(stored).toMatchObject({
      version: 7,
      status: 'done',
      reference: 'TRX-7',
      resolution: {
        outcome: 'done',
        by: ana,
        reason: `${ana} found it on the statement`,
        at: proposedAt,
        approval: { by: bo, reason: `${bo} found it on the statement`, at: w.clock.now() },
      },
    });
    expect(stored.pendingResolution).toBeUndefined();
    expect(stored.history.at(-1)).toMatchObject({ status: 'done', note: 'resolved done by an operator' });
    expect(w.events.published).toEqual([
      expect.objectContaining({
        id: `${deposit.id}.v7`,
        type: 'deposit.done',
        data: expect.objectContaining({ reference: 'TRX-7', resolved: true }),
      }),
    ]);
    // The caller never hears who, nor why.
    expect(JSON.stringify(w.events.published)).not.toMatch(/ops-ana|ops-bo|statement/);
    expect(body).toMatchObject({
      status: 'done',
      resolution: { by: ana, approval: { by: bo, at: new Date(w.clock.now()).toISOString() } },
    });
    expect(body.pendingResolution).toBeUndefined();
  });

  it('cannot be approved by the operator who proposed it: 403 RESOLUTION_NEEDS_ANOTHER_OPERATOR, nothing written', async () => {
    const w = world();
    const deposit = await w.deposit(unknown());
    await resolveDeposit(done(deposit.id, ana), resolving(w));

    const error = await refusal<OperatorError>(resolveDeposit(done(deposit.id, ana), resolving(w)));

    expect(error).toMatchObject({ type: 'RESOLUTION_NEEDS_ANOTHER_OPERATOR' });
    expect(error.message).toContain('another operator');
    expect(w.table.writes).toHaveLength(1);
    expect(w.events.published).toEqual([]);
  });

  it('refuses another operator who disagrees (another reference, or failed): 409 RESOLUTION_DISAGREES, nothing written', async () => {
    const w = world();
    const deposit = await w.deposit(unknown());
    await resolveDeposit(done(deposit.id, ana), resolving(w));

    const otherReference = await refusal<OperatorError>(
      resolveDeposit(done(deposit.id, bo, 'TRX-8'), resolving(w)),
    );
    const failed = await refusal<OperatorError>(
      resolveDeposit(
        { depositId: deposit.id, outcome: 'failed', reason: 'Not on the statement', who: bo },
        resolving(w),
      ),
    );

    for (const error of [otherReference, failed]) {
      expect(error).toMatchObject({ type: 'RESOLUTION_DISAGREES' });
      expect(error.message).toContain(`done with reference TRX-7 by ${ana}`);
    }
    expect(w.table.writes).toHaveLength(1);
    expect(w.table.current(deposit.id).pendingResolution).toMatchObject({ by: ana, reference: 'TRX-7' });
  });

  it('may be changed by its proposer: another reference replaces it (still pending), failed applies at once', async () => {
    const w = world();
    const deposit = await w.deposit(unknown());
    await resolveDeposit(done(deposit.id, ana), resolving(w));

    const corrected = await resolveDeposit(done(deposit.id, ana, 'TRX-7B'), resolving(w));
    const withdrawn = await resolveDeposit(
      { depositId: deposit.id, outcome: 'failed', reason: 'Misread the statement', who: ana },
      resolving(w),
    );

    expect(corrected.pendingResolution).toMatchObject({ by: ana, reference: 'TRX-7B' });
    expect(withdrawn).toMatchObject({ status: 'failed', type: 'TRANSFER_NOT_EXECUTED' });
    expect(w.table.current(deposit.id).pendingResolution).toBeUndefined();
    expect(w.table.current(deposit.id).resolution).toMatchObject({ outcome: 'failed', by: ana });
    expect(w.events.types()).toEqual(['deposit.failed']);
  });

  it('lapses after a day: the next done is a new proposal (its proposer is then the one who may not approve)', async () => {
    const w = world();
    const deposit = await w.deposit(unknown());
    await resolveDeposit(done(deposit.id, ana), resolving(w));
    w.clock.advance(APPROVAL_TTL_MS);

    const late = await resolveDeposit(done(deposit.id, bo), resolving(w));
    const byAna = await resolveDeposit(done(deposit.id, ana), resolving(w));

    expect(late).toMatchObject({ status: 'failed', pendingResolution: { by: bo } });
    expect(byAna).toMatchObject({
      status: 'done',
      resolution: { by: bo, approval: { by: ana } },
    });
    expect(w.events.types()).toEqual(['deposit.done']);
  });

  it('of two operators proposing the same at once, the second finds the first pending and approves it', async () => {
    const w = world();
    const deposit = await w.deposit(unknown());
    const ctx = resolving(w);
    let raced = false;
    // fault: Ana's proposal lands between Bo's read and Bo's write
    const racing = {
      ...ctx,
      deposits: {
        get: ctx.deposits.get,
        save: async (next: Deposit, expected: number) => {
          if (!raced) {
            raced = true;
            await resolveDeposit(done(deposit.id, ana), ctx);
          }
          return ctx.deposits.save(next, expected);
        },
      },
    };

    const body = await resolveDeposit(done(deposit.id, bo), racing);

    expect(body).toMatchObject({ status: 'done', resolution: { by: ana, approval: { by: bo } } });
    expect(w.events.types()).toEqual(['deposit.done']);
  });
});

describe('what needs no approval', () => {
  it('failed, whatever the amount: applied at once', async () => {
    const w = world();
    const deposit = await w.deposit(unknown({ amountMinor: 99_999_999 }));

    const body = await resolveDeposit(
      { depositId: deposit.id, outcome: 'failed', reason: 'No such transfer', who: ana },
      resolving(w),
    );

    expect(body).toMatchObject({ status: 'failed', type: 'TRANSFER_NOT_EXECUTED' });
    expect(w.events.types()).toEqual(['deposit.failed']);
  });

  it('done at the threshold, in each currency minor units; one minor unit above it waits', async () => {
    const w = world();
    const atAed = await w.deposit(unknown({ amountMinor: 100_000 }));
    const aboveKwd = await w.deposit(unknown({ currency: 'KWD', amountMinor: 100_001 }));
    const atKwd = await w.deposit(unknown({ currency: 'KWD', amountMinor: 100_000 }));

    const answers = await Promise.all(
      [atAed, aboveKwd, atKwd].map((deposit) => resolveDeposit(done(deposit.id, ana), resolving(w))),
    );

    expect(answers.map((answer) => [answer.status, answer.pendingResolution !== undefined])).toEqual([
      ['done', false],
      ['failed', true],
      ['done', false],
    ]);
  });

  it('a currency the thresholds do not name has none: every done in it waits for a second operator', async () => {
    const w = world();
    const deposit = await w.deposit(unknown({ currency: 'BHD', amountMinor: 1 }));

    const body = await resolveDeposit(done(deposit.id, ana), resolving(w));

    expect(body.pendingResolution).toMatchObject({ by: ana });
  });
});

describe('the thresholds as configured', () => {
  it('take whole minor units per known currency, and nothing else', () => {
    expect(ApprovalThresholds.parse({})).toEqual({});
    expect(ApprovalThresholds.parse({ AED: 0, KWD: 5_000_000 })).toEqual({ AED: 0, KWD: 5_000_000 });
    for (const wrong of [{ XYZ: 1 }, { aed: 1 }, { AED: -1 }, { AED: 10.5 }, { AED: '1000' }, []]) {
      expect(ApprovalThresholds.safeParse(wrong).success, JSON.stringify(wrong)).toBe(false);
    }
  });
});
