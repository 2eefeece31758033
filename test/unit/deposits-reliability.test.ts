/**
 * Ways a deposit could loop, stall, or move the wrong money, each reproduced through the fakes,
 * each test failing before its fix: the currency moved, the wallet's beneficiary in the bank's
 * list, a cool-down refusal, another deposit's claim, the sweeper. Steps that throw, questions on
 * reads, beneficiaries gone, the lease and late answers: the `deposits-reliability-*` files beside
 * this one.
 */
import { describe, expect, it } from 'vitest';
import { localWallets } from '#infra/local/wallets';
import { sweep } from '#shared/deposits/background/sweeper';
import { walletAccounts } from '#shared/deposits/model/wallets';
import { ensureBeneficiary } from '#shared/deposits/steps/ensure-beneficiary';
import { resolveBank } from '#shared/deposits/steps/resolve-bank';
import { transfer } from '#shared/deposits/steps/transfer';
import { answers, banks, ownerKey, settings, world } from '../support/deposit-world.ts';
import { atTransfer, listedBeneficiary, metadata } from '../support/reliability.ts';

describe('the currency of the money moved', () => {
  it('is refused when the bank publishes no bounds: it has not said it moves the wallet currency', async () => {
    const w = world();
    const ctx = w.contexts.resolveBank();
    const deposit = await w.deposit();
    w.provider.answer('getMetadata', metadata({ transferBounds: [] }));

    await resolveBank(deposit, ctx);

    expect(w.table.current(deposit.id)).toMatchObject({
      status: 'failed',
      failure: { type: 'CURRENCY_NOT_SUPPORTED' },
    });
    expect(ctx.queues.sent).toEqual([]);
  });
});

describe('the wallet beneficiary in the bank list', () => {
  it('needs the wallet account to name its account number', () => {
    const [aed] = localWallets;
    if (!aed) throw new Error('no local wallet');

    expect(() => walletAccounts([{ ...aed, accountNumber: '' }])).toThrow(/account number/);
    expect(() => walletAccounts([{ ...aed, accountNumber: '  ' }])).toThrow(/account number/);
  });

  it('never takes a listed beneficiary by its name alone', async () => {
    const w = world();
    const ctx = w.contexts.ensureBeneficiary();
    const deposit = await w.deposit({ step: 'ensure-beneficiary', bank: banks.beneficiary });
    w.provider
      .answer(
        'listBeneficiaries',
        listedBeneficiary('someone-elses', 'Acme Wallet LLC', '5550001111'),
        listedBeneficiary('ben-new', 'Acme Wallet LLC', '0331234567890123456'),
      )
      .answer(
        'createBeneficiary',
        answers.done({ jobID: 'j', success: true, status: 'done', reference: 'ref-new' }),
      );

    await ensureBeneficiary(deposit, ctx);

    expect(w.provider.callsOf('createBeneficiary')).toHaveLength(1);
    expect(w.table.current(deposit.id).beneficiaryId).toBe('ben-new');
  });

  it('matches on the account number, however the bank spells the name or groups the digits', async () => {
    const w = world();
    const ctx = w.contexts.ensureBeneficiary();
    const deposit = await w.deposit({ step: 'ensure-beneficiary', bank: banks.beneficiary });
    w.provider.answer(
      'listBeneficiaries',
      listedBeneficiary('ben-9', 'ACME WALLET L.L.C.', '0331 2345 6789 0123 456'),
    );

    await ensureBeneficiary(deposit, ctx);

    expect(w.table.current(deposit.id)).toMatchObject({ step: 'transfer', beneficiaryId: 'ben-9' });
    expect(w.provider.callsOf('createBeneficiary')).toEqual([]);
  });
});

describe('a cool-down refusal', () => {
  it.for([
    { label: 'names a past instant', msg: 'until 2020-01-01T00:00:00.000Z' },
    { label: 'names no instant', msg: 'The beneficiary is in its cool-down period' },
    { label: 'names an instant a second away', msg: 'soon' },
  ])('that $label waits at least a minute', async ({ msg }, { expect }) => {
    const w = world();
    const ctx = w.contexts.transfer();
    const deposit = await atTransfer(w);
    const text = msg === 'soon' ? `until ${new Date(w.clock.now() + 1_000).toISOString()}` : msg;
    w.provider.answer('createTransfer', answers.refusal('BENEFICIARY_COOL_DOWN_PERIOD', text));

    await transfer(deposit, ctx);

    expect(w.table.current(deposit.id).cooldownUntil).toBeGreaterThanOrEqual(w.clock.now() + 60_000);
  });

  it('is counted across step changes, and fails the deposit past the retry limit', async () => {
    const w = world();
    const ctx = w.contexts.transfer();
    let deposit = await atTransfer(w);
    const refusal = () =>
      answers.refusal(
        'BENEFICIARY_COOL_DOWN_PERIOD',
        `until ${new Date(w.clock.now() + 120_000).toISOString()}`,
      );

    for (let round = 0; round <= settings.maxRetries; round += 1) {
      w.provider.answer('createTransfer', refusal());
      await transfer(deposit, ctx);
      deposit = w.table.current(deposit.id);
      if (deposit.status === 'failed') break;
      expect(deposit.step).toBe('wait-cooldown');
      // The wake-up: past the cool-down, the transfer step moves it back and calls again.
      w.clock.set((deposit.cooldownUntil ?? 0) + 1);
    }

    expect(deposit).toMatchObject({ status: 'failed', failure: { type: 'BENEFICIARY_COOL_DOWN_PERIOD' } });
    expect(w.provider.callsOf('createTransfer')).toHaveLength(settings.maxRetries + 1);
  });
});

describe("waiting for another deposit's beneficiary claim", () => {
  it('waits until the holder will act, with one wake-up recorded in the check time', async () => {
    const w = world();
    const ctx = w.contexts.ensureBeneficiary();
    const deposit = await w.deposit({ step: 'ensure-beneficiary', bank: banks.hiddenCoolDown });
    const holderActsAt = w.clock.now() + 86_400_000;
    w.table.claimItems.set(`${ownerKey}#wallet-aed`, {
      ownerKey,
      walletAccountId: 'wallet-aed',
      state: 'creating',
      depositId: 'dep_holder',
      claimedAt: holderActsAt,
    });

    await ensureBeneficiary(deposit, ctx);
    await ensureBeneficiary(w.table.current(deposit.id), ctx);

    const waiting = w.table.current(deposit.id);
    expect(ctx.queues.sent).toEqual([]);
    expect([...ctx.scheduler.schedules.values()].map((schedule) => schedule.message.step)).toEqual([
      'ensure-beneficiary',
    ]);
    expect([...ctx.scheduler.schedules.values()][0]?.at).toBeGreaterThanOrEqual(holderActsAt);
    expect(waiting.checkAt).toBeGreaterThan(holderActsAt);
    expect(w.provider.calls).toEqual([]);
  });

  it('polls a holder at work with growing, recorded waits, not a message every second', async () => {
    const w = world();
    const ctx = w.contexts.ensureBeneficiary();
    let deposit = await w.deposit({ step: 'ensure-beneficiary', bank: banks.beneficiary });
    w.table.claimItems.set(`${ownerKey}#wallet-aed`, {
      ownerKey,
      walletAccountId: 'wallet-aed',
      state: 'creating',
      depositId: 'dep_holder',
      claimedAt: w.clock.now(),
    });

    const delays: number[] = [];
    for (let round = 0; round < 4; round += 1) {
      await ensureBeneficiary(deposit, ctx);
      deposit = w.table.current(deposit.id);
      const sent = ctx.queues.sent.at(-1);
      delays.push(sent?.delaySeconds ?? -1);
      expect(sent?.message.version).toBe(deposit.version);
      w.clock.advance((sent?.delaySeconds ?? 0) * 1000);
    }

    expect(delays[0]).toBeGreaterThanOrEqual(1);
    for (let i = 1; i < delays.length; i += 1) expect(delays[i]).toBeGreaterThan(delays[i - 1] ?? 0);
  });
});

describe('the sweeper', () => {
  it('moves the check time of each deposit it re-drives forward, with backoff', async () => {
    const w = world();
    const ctx = w.contexts.sweep();
    const stuck = await w.deposit({ step: 'ensure-beneficiary', checkAt: w.clock.now() - 1 });

    const start = w.clock.now();
    await sweep(ctx);
    const first = w.table.current(stuck.id).checkAt ?? 0;
    await sweep(ctx);
    w.clock.set(first);
    await sweep(ctx);
    const second = w.table.current(stuck.id).checkAt ?? 0;

    expect(first - start).toBe(settings.stallAfterMs);
    expect(second - first).toBe(2 * settings.stallAfterMs);
    // Twice re-driven (the run in between found it not due), and still at its version: the
    // messages in flight for it stay valid.
    expect(ctx.queues.sent).toHaveLength(2);
    expect(w.table.current(stuck.id)).toMatchObject({ version: stuck.version, redrives: 2 });
  });

  it('is not starved by a hundred stuck deposits: it pages through all that are due', async () => {
    const w = world();
    const ctx = w.contexts.sweep();
    const now = w.clock.now();
    for (let i = 0; i < 150; i += 1) await w.deposit({ checkAt: now - 10_000 + i });
    const newest = await w.deposit({ step: 'transfer', checkAt: now - 1 });

    const { redriven } = await sweep(ctx);

    expect(redriven).toBe(151);
    expect(ctx.queues.sent.some((sent) => sent.message.depositId === newest.id)).toBe(true);
  });
});
