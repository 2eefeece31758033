/**
 * A deposit whose way to the transfer is known when it is created (`known-route.ts`): the bank
 * remembered and our beneficiary on record, its cool-down over. Through the fakes of the create's ports.
 */
import { describe, expect, it } from 'vitest';
import type { BeneficiaryClaim } from '#shared/deposits/model/deposit';
import { startDeposit, startSource } from '#shared/deposits/requests/start';
import { resolveBank } from '#shared/deposits/steps/resolve-bank';
import type { AccountsMetadata } from '#shared/provider/interface/schemas';
import { bankKey, metadata, ownerKey, startRequest, world } from '../support/deposit-world.ts';

type World = ReturnType<typeof world>;

/** The connection's bank as resolve-bank remembered it, for an hour from now. */
function remembered(w: World, overrides: Partial<AccountsMetadata> = {}) {
  const answer = metadata(overrides) as unknown as { response: { accountsMetadata: AccountsMetadata } };
  w.table.bankItems.set(bankKey, {
    metadata: answer.response.accountsMetadata,
    until: w.clock.now() + 3_600_000,
  });
}

/** Our record of the wallet's beneficiary on the connection. */
function onRecord(w: World, overrides: Partial<BeneficiaryClaim> = {}) {
  w.table.claimItems.set(`${ownerKey}#wallet-aed`, {
    ownerKey,
    walletAccountId: 'wallet-aed',
    state: 'created',
    depositId: 'dep_earlier',
    claimedAt: w.clock.now() - 60_000,
    beneficiaryId: 'ben-1',
    cooldownUntil: w.clock.now() - 1,
    used: true,
    ...overrides,
  });
}

describe('a deposit whose way to the transfer is known', () => {
  it('starts at the transfer with the bank and the beneficiary: two steps that would call nothing skipped', async () => {
    // prepare
    const w = world();
    const ctx = w.contexts.start();
    remembered(w);
    onRecord(w);

    // act
    const answer = await startDeposit(startRequest(), ctx);

    // assess
    const id = answer.view.operationID;
    expect(answer.view).toMatchObject({ status: 'initialized', step: 'transfer' });
    expect(w.table.current(id)).toMatchObject({
      step: 'transfer',
      version: 0,
      beneficiaryId: 'ben-1',
      beneficiaryWork: { sendDetails: false },
      bank: { bankName: 'Sandbox Bank', isCreateBeneficiaryEndpointRequired: true, coolDownMs: 0 },
      history: [
        { step: 'transfer', status: 'initialized', note: 'bank and beneficiary remembered: Sandbox Bank' },
      ],
    });
    expect(ctx.queues.sent.map((sent) => sent.message)).toEqual([
      { depositId: id, step: 'transfer', version: 0, kind: 'run' },
    ]);
    expect(w.observer.transitions).toEqual(['initialized/transfer']);
  });

  it("sends the beneficiary's details with a beneficiary never used yet", async () => {
    const w = world();
    const ctx = w.contexts.start();
    remembered(w);
    onRecord(w, { used: undefined });

    const answer = await startDeposit(startRequest(), ctx);

    expect(w.table.current(answer.view.operationID)).toMatchObject({
      step: 'transfer',
      beneficiaryWork: { sendDetails: true },
    });
  });

  it('at a bank that creates no beneficiary, needs only the bank remembered', async () => {
    const w = world();
    const ctx = w.contexts.start();
    remembered(w, { isCreateBeneficiaryEndpointRequired: false });

    const answer = await startDeposit(startRequest(), ctx);

    const stored = w.table.current(answer.view.operationID);
    expect(stored).toMatchObject({ step: 'transfer', bank: { isCreateBeneficiaryEndpointRequired: false } });
    expect(stored.beneficiaryId).toBeUndefined();
    expect(stored.history[0]?.note).toBe('bank remembered: Sandbox Bank');
  });

  it.for([
    { label: 'the bank not remembered', bank: false, claim: {} },
    { label: 'no beneficiary on record', bank: true, claim: undefined },
    { label: 'a beneficiary whose id is not known yet', bank: true, claim: { beneficiaryId: undefined } },
    { label: 'a beneficiary still being created', bank: true, claim: { state: 'creating' as const } },
    { label: 'a cool-down still running', bank: true, claim: { cooldownUntil: 10 ** 13 } },
    { label: 'an amount below the remembered minimum', bank: true, claim: {}, amount: 5 },
  ])('starts at resolve-bank with $label', async ({ bank, claim, amount }) => {
    const w = world();
    const ctx = w.contexts.start();
    if (bank) remembered(w);
    if (claim) onRecord(w, claim);

    const answer = await startDeposit(startRequest(amount === undefined ? {} : { amount }), ctx);

    const stored = w.table.current(answer.view.operationID);
    expect(stored).toMatchObject({
      step: 'resolve-bank',
      history: [{ step: 'resolve-bank', status: 'initialized' }],
    });
    expect(stored.bank).toBeUndefined();
    expect(ctx.queues.sent.map((sent) => sent.message.step)).toEqual(['resolve-bank']);
  });

  it('a payment source always prepares from resolve-bank', async () => {
    const w = world();
    const ctx = w.contexts.start();
    remembered(w);
    onRecord(w);
    const { amount: _amount, senderID: _sender, ...request } = startRequest();

    await startSource(request, ctx);

    expect(ctx.queues.sent.map((sent) => sent.message.step)).toEqual(['resolve-bank']);
  });
});

describe('the route memory and the user secret', () => {
  it('another userSecret on the same token never takes the route its bank memory remembers', async () => {
    // prepare: the connection's first deposit resolves its bank (remembered) and its beneficiary is on record
    const w = world();
    const first = await startDeposit(startRequest(), w.contexts.start());
    w.provider.answer('getMetadata', metadata());
    await resolveBank(w.table.current(first.view.operationID), w.contexts.resolveBank());
    onRecord(w);

    // act: the same token, another user secret (a wrong one, or another user's)
    const ctx = w.contexts.start();
    const other = await startDeposit(
      startRequest({ userSecret: 'another-user-secret', idempotencyKey: 'key-2' }),
      ctx,
    );

    // assess: it asks the bank (which refuses a wrong secret at once), never starts at the transfer
    expect(w.table.current(first.view.operationID).step).toBe('ensure-beneficiary');
    expect(w.table.current(other.view.operationID)).toMatchObject({ step: 'resolve-bank' });
    expect(ctx.queues.sent.map((sent) => sent.message.step)).toEqual(['resolve-bank']);
  });
});
