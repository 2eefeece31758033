/**
 * What the service remembers of a connection's bank and beneficiary, corrected when the bank says
 * otherwise, through the fakes of the ports and a manual clock:
 *   - a cool-down refusal at the transfer moves our record's cool-down on, so the next deposit does
 *     not take the known route into the same refusal;
 *   - an amount the remembered bounds refuse is asked of the bank, whose word decides (and is
 *     remembered): memory never refuses money on its own;
 *   - a beneficiary the bank says is gone is registered again, once per deposit: nothing moved.
 * (Each failed before: the record kept its old cool-down, the deposit failed AMOUNT_BELOW_MINIMUM
 * without the bank being asked, and the deposit failed INVALID_BENEFICIARY_ID.)
 */
import { describe, expect, it } from 'vitest';
import type { Deposit } from '#shared/deposits/model/deposit';
import { startDeposit } from '#shared/deposits/requests/start';
import { resolveBank } from '#shared/deposits/steps/resolve-bank';
import { transfer } from '#shared/deposits/steps/transfer';
import {
  answers,
  bankKey,
  banks,
  claimKey,
  metadata,
  ownerKey,
  settings,
  startRequest,
  world,
} from '../support/deposit-world.ts';

type World = ReturnType<typeof world>;

/** Our record of the wallet's beneficiary `ben-1` on the connection, cooled down, used. */
function onRecord(w: World) {
  w.table.claimItems.set(claimKey, {
    ownerKey,
    walletAccountId: 'wallet-aed',
    state: 'created',
    depositId: 'dep_earlier',
    claimedAt: w.clock.now() - 60_000,
    beneficiaryId: 'ben-1',
    cooldownUntil: w.clock.now() - 1,
    used: true,
  });
}

function atTransfer(w: World, overrides: Partial<Deposit> = {}) {
  return w.deposit({
    step: 'transfer',
    version: 2,
    bank: banks.beneficiary,
    beneficiaryId: 'ben-1',
    ...overrides,
  });
}

describe("a cool-down refusal at the transfer corrects our record's cool-down", () => {
  it('moves the cool-down on to the instant the bank names; the next deposit does not start at the transfer', async () => {
    // prepare
    const w = world();
    onRecord(w);
    const until = w.clock.now() + 3_600_000;
    const deposit = await atTransfer(w);
    const refusal = `The beneficiary cools down until ${new Date(until).toISOString()}`;
    w.provider.answer('createTransfer', answers.refusal('BENEFICIARY_COOL_DOWN_PERIOD', refusal));
    w.provider.answer('getMetadata', metadata());
    await resolveBank(await w.deposit(), w.contexts.resolveBank());
    // Its next step, not run here, would take the lease handed to it, and give it back.
    w.table.leaseItems.clear();

    // act
    await transfer(deposit, w.contexts.transfer());
    const next = await startDeposit(startRequest(), w.contexts.start());

    // assess
    expect(w.table.claimItems.get(claimKey)).toMatchObject({ beneficiaryId: 'ben-1', cooldownUntil: until });
    expect(w.table.current(next.view.operationID).step).toBe('resolve-bank');
  });

  it('never moves it back, nor onto a record that names another beneficiary', async () => {
    const w = world();
    onRecord(w);
    const record = w.table.claimItems.get(claimKey);
    if (record) record.beneficiaryId = 'ben-2';
    const deposit = await atTransfer(w);
    w.provider.answer('createTransfer', answers.refusal('BENEFICIARY_COOL_DOWN_PERIOD', 'later'));

    await transfer(deposit, w.contexts.transfer());

    expect(w.table.claimItems.get(claimKey)).toMatchObject({
      beneficiaryId: 'ben-2',
      cooldownUntil: w.clock.now() - 1,
    });
  });
});

describe('an amount the remembered bounds refuse', () => {
  it('is asked of the bank, whose word decides: a lowered minimum lets it through, and is remembered', async () => {
    // prepare: the bank's minimum was 10.00 when remembered; it is 5.00 now
    const w = world();
    const ctx = w.contexts.resolveBank();
    w.provider.answer('getMetadata', metadata());
    await resolveBank(await w.deposit(), ctx);
    // Its next step, not run here, would take the lease handed to it, and give it back.
    w.table.leaseItems.clear();
    const lowered = metadata({
      transferBounds: [{ minimum: 5, currency: { code: 'AED', name: 'Dirham' }, type: 'local' }],
    });
    w.provider.answer('getMetadata', lowered);
    const small = await w.deposit({ amountMinor: 700 });

    // act
    await resolveBank(small, ctx);

    // assess
    expect(w.provider.callsOf('getMetadata')).toHaveLength(2);
    expect(w.table.current(small.id)).toMatchObject({ status: 'initialized', step: 'ensure-beneficiary' });
    expect(w.table.bankItems.get(bankKey)?.metadata.transferBounds[0]?.minimum).toBe(5);
  });
});

describe('a beneficiary the bank says is gone', () => {
  it('is registered again: the deposit goes back to ensure-beneficiary, our record forgotten', async () => {
    // prepare
    const w = world();
    onRecord(w);
    const deposit = await atTransfer(w);
    w.provider.answer('createTransfer', answers.refusal('INVALID_BENEFICIARY_ID'));
    const ctx = w.contexts.transfer();

    // act
    await transfer(deposit, ctx);

    // assess
    const after = w.table.current(deposit.id);
    expect(after).toMatchObject({
      status: 'initialized',
      step: 'ensure-beneficiary',
      tallies: { registrations: 1 },
    });
    expect(after.beneficiaryId).toBeUndefined();
    expect(after.transfer?.attempt).toBeUndefined();
    expect(w.table.claimItems.has(claimKey)).toBe(false);
    expect(ctx.queues.sent.map((sent) => sent.message.step)).toEqual(['ensure-beneficiary']);
    expect(w.events.types()).toEqual([]);
  });

  it('once per deposit: gone again after its registration, the deposit fails with the type', async () => {
    const w = world();
    onRecord(w);
    const deposit = await atTransfer(w, { tallies: { registrations: 1 } });
    w.provider.answer('createTransfer', answers.refusal('INVALID_BENEFICIARY_ID'));

    await transfer(deposit, w.contexts.transfer());

    expect(w.table.current(deposit.id)).toMatchObject({
      status: 'failed',
      failure: { type: 'INVALID_BENEFICIARY_ID' },
    });
    expect(settings.maxRetries).toBeGreaterThan(1);
  });
});
