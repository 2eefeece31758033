/** The deposits API's use cases through the fakes: starting a deposit once per key, and reading it. */
import { describe, expect, it } from 'vitest';
import { localWallets } from '#infra/local/wallets';
import { DepositError } from '#shared/deposits/model/errors';
import { DEFAULT_MAX_DEPOSIT, walletAccounts } from '#shared/deposits/model/wallets';
import { readDeposit } from '#shared/deposits/requests/read';
import { startDeposit } from '#shared/deposits/requests/start';
import { credentials, ownerKey, settings, startRequest, world } from '../support/deposit-world.ts';

const request = startRequest;

describe('starting a deposit', () => {
  it('stores it in minor units with sealed credentials, and sends resolve-bank', async () => {
    // prepare
    const w = world();
    const ctx = w.contexts.start();

    // act
    const answer = await startDeposit(request(), ctx);

    // assess
    expect(answer).toMatchObject({
      started: true,
      view: {
        status: 'initialized',
        step: 'resolve-bank',
        amount: 25.5,
        currency: 'AED',
        walletAccountID: 'wallet-aed',
      },
    });
    const id = answer.view.operationID;
    const stored = w.table.current(id);
    expect(stored).toMatchObject({
      amountMinor: 2550,
      ownerKey,
      version: 0,
      checkAt: w.clock.now() + settings.stallAfterMs,
    });
    expect(JSON.stringify(stored)).not.toContain(credentials.accessToken);
    expect(JSON.stringify(stored)).not.toContain(credentials.userSecret);
    expect(await w.vault.open('credentials', id, stored.sealedCredentials ?? '')).toEqual(credentials);
    expect(ctx.queues.sent.map((sent) => sent.message)).toEqual([
      { depositId: id, step: 'resolve-bank', version: 0, kind: 'run' },
    ]);
    expect(w.observer.transitions).toEqual(['initialized/resolve-bank']);
  });

  it('answers the same deposit for the same request and key, and sends nothing again', async () => {
    const w = world();
    const ctx = w.contexts.start();
    const first = await startDeposit(request(), ctx);

    const again = await startDeposit(request(), ctx);

    expect(again.started).toBe(false);
    expect(again.view.operationID).toBe(first.view.operationID);
    expect(ctx.queues.sent).toHaveLength(1);
    expect(w.table.items.size).toBe(1);
  });

  it.for([
    { label: 'another amount', changes: { amount: 30 } },
    { label: 'another sender account', changes: { senderID: 'acc-2' } },
    { label: 'another user secret', changes: { userSecret: 'someone-else' } },
  ])('refuses the key reused for $label', async ({ changes }) => {
    const w = world();
    const ctx = w.contexts.start();
    await startDeposit(request(), ctx);

    const reused = startDeposit(request(changes), ctx);

    await expect(reused).rejects.toThrow(DepositError);
    await expect(reused).rejects.toMatchObject({ type: 'IDEMPOTENCY_KEY_REUSED' });
    expect(ctx.queues.sent).toHaveLength(1);
  });

  it('keeps keys apart per connection', async () => {
    const w = world();
    const ctx = w.contexts.start();
    await startDeposit(request(), ctx);

    const other = await startDeposit(request({ accessToken: 'token-2' }), ctx);

    expect(other.started).toBe(true);
    expect(w.table.items.size).toBe(2);
  });

  it('refuses an unknown wallet account and an amount finer than its currency, storing nothing', async () => {
    const w = world();
    const ctx = w.contexts.start();

    await expect(startDeposit(request({ walletAccountID: 'wallet-xyz' }), ctx)).rejects.toMatchObject({
      type: 'INVALID_WALLET_ACCOUNT_ID',
    });
    await expect(startDeposit(request({ amount: 1.005 }), ctx)).rejects.toMatchObject({
      type: 'BAD_REQUEST',
      details: [expect.stringMatching(/^amount: /)],
    });
    // KWD has three decimals: the same amount is exact there.
    const kwd = await startDeposit(request({ walletAccountID: 'wallet-kwd', amount: 1.005 }), ctx);
    expect(w.table.current(kwd.view.operationID).amountMinor).toBe(1005);
    expect(w.table.items.size).toBe(1);
  });
});

describe('the largest deposit', () => {
  it("takes the wallet account's largest, and refuses a cent more (AMOUNT_ABOVE_MAXIMUM), storing nothing", async () => {
    const w = world();
    const ctx = w.contexts.start();
    const wallet = w.wallets.find('wallet-aed') ?? expect.fail('no wallet-aed');

    const largest = await startDeposit(request({ amount: DEFAULT_MAX_DEPOSIT }), ctx);
    const over = startDeposit(request({ amount: DEFAULT_MAX_DEPOSIT + 0.01 }), ctx);

    expect(wallet.maxDepositMinor).toBe(10_000_000);
    expect(largest.started).toBe(true);
    await expect(over).rejects.toMatchObject({
      type: 'AMOUNT_ABOVE_MAXIMUM',
      message: 'The largest deposit into wallet-aed is 100000 AED',
    });
    expect(w.table.items.size).toBe(1);
  });

  it("takes each account's own largest, in its currency's minor units", () => {
    const [aedConfig, kwdConfig] = localWallets;
    if (!aedConfig || !kwdConfig) throw new Error('the local wallets are two');
    const [aed, kwd] = walletAccounts([
      { ...aedConfig, maxDeposit: 2_500.5 },
      { ...kwdConfig, maxDeposit: 1_000.125 },
    ]);
    expect([aed?.maxDepositMinor, kwd?.maxDepositMinor]).toEqual([250_050, 1_000_125]);
  });
});

describe('reading a deposit', () => {
  it('answers its owner (token and user secret), and no one else', async () => {
    const w = world();
    const started = await startDeposit(request(), w.contexts.start());
    const depositId = started.view.operationID;
    const ctx = w.contexts.read();

    const read = await readDeposit({ depositId, ...credentials }, ctx);

    expect(read).toMatchObject({ operationID: depositId, status: 'initialized' });
    for (const stranger of [
      { accessToken: 'token-2', userSecret: credentials.userSecret },
      { accessToken: credentials.accessToken, userSecret: 'other' },
    ]) {
      await expect(readDeposit({ depositId, ...stranger }, ctx)).rejects.toMatchObject({
        type: 'DEPOSIT_NOT_FOUND',
      });
    }
    await expect(readDeposit({ depositId: 'dep_none', ...credentials }, ctx)).rejects.toMatchObject({
      type: 'DEPOSIT_NOT_FOUND',
    });
  });

  it('shows when a cooling-down deposit resumes, and the question of one waiting for its caller', async () => {
    const w = world();
    const ctx = w.contexts.read();
    const until = w.clock.now() + 3_600_000;
    const cooling = await w.deposit({ step: 'wait-cooldown', cooldownUntil: until });
    const asking = await w.deposit({
      step: 'transfer',
      status: 'user_input_required',
      pendingInput: { providerOperationId: 'op', userInputs: [], expiresAt: until },
    });

    const coolingView = await readDeposit({ depositId: cooling.id, ...credentials }, ctx);
    const askingView = await readDeposit({ depositId: asking.id, ...credentials }, ctx);

    expect(coolingView.resumesAt).toBe(new Date(until).toISOString());
    expect(askingView).toMatchObject({ userInputs: [], inputExpiresAt: new Date(until).toISOString() });
    w.clock.advance(3_600_001);
    expect((await readDeposit({ depositId: cooling.id, ...credentials }, ctx)).resumesAt).toBeUndefined();
  });
});
