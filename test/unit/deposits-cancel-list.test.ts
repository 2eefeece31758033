/**
 * The caller's cancel and list, through the fakes: a deposit is cancelled in every state before its
 * transfer (its event, its credentials, its connection, its claim, its schedules), refused at the
 * transfer and after; a connection's deposits are listed newest first, a page at a time.
 */
import { describe, expect, it } from 'vitest';
import type { Deposit } from '#shared/deposits/model/deposit';
import { DepositError } from '#shared/deposits/model/errors';
import { cancelDeposit } from '#shared/deposits/requests/cancel';
import { listDeposits } from '#shared/deposits/requests/read';
import { ensureBeneficiary } from '#shared/deposits/steps/ensure-beneficiary';
import { waitCooldown } from '#shared/deposits/steps/wait-cooldown';
import {
  answers,
  banks,
  credentials,
  ownerDigests,
  ownerKey,
  settings,
  world,
} from '../support/deposit-world.ts';
import { refusal } from '../support/refusal.ts';

type World = ReturnType<typeof world>;

const request = (depositId: string) => ({
  depositId,
  accessToken: credentials.accessToken,
  userSecret: credentials.userSecret,
});

function expectCancelled(w: World, id: string) {
  const after = w.table.current(id);
  expect(after).toMatchObject({
    status: 'failed',
    step: 'completed',
    failure: { type: 'CANCELLED', msg: 'Cancelled by its owner' },
  });
  expect(after.sealedCredentials).toBeUndefined();
  expect(after.sealedAnswers).toBeUndefined();
  expect(after.checkAt).toBeUndefined();
  expect(w.events.published.at(-1)).toMatchObject({
    id: `${id}.v${after.version}`,
    type: 'deposit.failed',
    data: { type: 'CANCELLED' },
  });
}

describe('cancel', () => {
  it.for([
    { label: 'resolving its bank', overrides: { step: 'resolve-bank' } },
    {
      label: 'registering its beneficiary',
      overrides: { step: 'ensure-beneficiary', bank: banks.beneficiary },
    },
  ] as { label: string; overrides: Partial<Deposit> }[])(
    'ends a deposit $label: failed CANCELLED, credentials erased, its caller told',
    async ({ overrides }) => {
      const w = world();
      const deposit = await w.deposit(overrides);

      const answer = await cancelDeposit(request(deposit.id), w.contexts.cancel());

      expect(answer).toMatchObject({ status: 'failed', type: 'CANCELLED' });
      expectCancelled(w, deposit.id);
    },
  );

  it('ends a deposit waiting for its caller: the connection freed, the expiry schedule deleted', async () => {
    const w = world();
    // A question open an hour: its expiry is a schedule.
    const ctx = { ...w.contexts.ensureBeneficiary(), settings: { ...settings, inputTtlMs: 3_600_000 } };
    const deposit = await w.deposit({ step: 'ensure-beneficiary', bank: banks.beneficiary });
    w.provider
      .answer(
        'listBeneficiaries',
        answers.done({ jobID: 'j', success: true, status: 'done', beneficiaries: [] }),
      )
      .answer('createBeneficiary', answers.question('op-q'));
    await ensureBeneficiary(deposit, ctx);
    expect(w.table.leaseItems.get(ownerKey)?.holder).toBe(`${deposit.id}#own`);
    expect(ctx.scheduler.schedules.size).toBe(1);
    const cancel = w.contexts.cancel(ctx.scheduler);

    await cancelDeposit(request(deposit.id), cancel);

    expectCancelled(w, deposit.id);
    expect(w.table.leaseItems.size).toBe(0);
    expect([...w.table.claimItems.keys()].filter((key) => w.table.heldClaim(key))).toEqual([]);
    expect(ctx.scheduler.schedules.size).toBe(0);
    expect(w.table.current(deposit.id).pendingInput).toBeUndefined();
  });

  it("ends a deposit waiting out the bank's cool-down: its wake-up schedule deleted, the beneficiary it created kept on record", async () => {
    const w = world();
    const ensure = w.contexts.ensureBeneficiary();
    const deposit = await w.deposit({ step: 'ensure-beneficiary', bank: banks.hiddenCoolDown });
    w.provider.answer('createBeneficiary', answers.done({ jobID: 'j', success: true, status: 'done' }));
    await ensureBeneficiary(deposit, ensure);
    const cooling = w.table.current(deposit.id);
    expect(cooling.step).toBe('wait-cooldown');
    const wait = w.contexts.waitCooldown();
    await waitCooldown(cooling, wait);
    expect(wait.scheduler.schedules.size).toBe(1);

    await cancelDeposit(request(deposit.id), w.contexts.cancel(wait.scheduler));

    expectCancelled(w, deposit.id);
    expect(wait.scheduler.schedules.size).toBe(0);
    // The bank has the beneficiary it created: its record stays, for another deposit to look up.
    expect([...w.table.claimItems.values()]).toEqual([
      expect.objectContaining({ state: 'created', depositId: deposit.id, lookupAt: cooling.cooldownUntil }),
    ]);
  });

  it.for([
    { label: 'at its transfer', overrides: { step: 'transfer', version: 3 } },
    {
      label: 'with a transfer attempt on record',
      overrides: { step: 'transfer', transfer: { attempt: { at: 1, answering: false } } },
    },
    { label: 'done', overrides: { step: 'completed', status: 'done' } },
    { label: 'failed', overrides: { step: 'completed', status: 'failed' } },
  ] as { label: string; overrides: Partial<Deposit> }[])(
    'refuses a deposit $label, and moves nothing',
    async ({ overrides }) => {
      const w = world();
      const deposit = await w.deposit(overrides);

      const refused = await refusal(cancelDeposit(request(deposit.id), w.contexts.cancel()));

      expect(refused).toBeInstanceOf(DepositError);
      expect(refused).toMatchObject({ type: 'DEPOSIT_NOT_CANCELLABLE' });
      expect(w.table.writes).toEqual([]);
      expect(w.events.published).toEqual([]);
    },
  );

  it('answers DEPOSIT_NOT_FOUND to anyone but its owner, and for an unknown id', async () => {
    const w = world();
    const deposit = await w.deposit();

    const stranger = await refusal(
      cancelDeposit({ ...request(deposit.id), accessToken: 'someone-else' }, w.contexts.cancel()),
    );
    const otherSecret = await refusal(
      cancelDeposit({ ...request(deposit.id), userSecret: 'other' }, w.contexts.cancel()),
    );
    const unknown = await refusal(cancelDeposit(request('dep_unknown'), w.contexts.cancel()));

    for (const refused of [stranger, otherSecret, unknown]) {
      expect(refused).toMatchObject({ type: 'DEPOSIT_NOT_FOUND' });
    }
    expect(w.table.writes).toEqual([]);
  });

  it('decides again when a step moved the deposit meanwhile: reaching the transfer, it is refused', async () => {
    const w = world();
    const deposit = await w.deposit({ step: 'wait-cooldown', beneficiaryId: 'ben-1', version: 2 });
    const ctx = w.contexts.cancel();
    const save = ctx.deposits.save;
    let raced = false;
    ctx.deposits = {
      ...ctx.deposits,
      // The transfer step's write lands just before the cancel's.
      save: async (next, expected) => {
        if (!raced) {
          raced = true;
          w.table.put({
            ...deposit,
            step: 'transfer',
            version: 3,
            transfer: { attempt: { at: 1, answering: false } },
          });
        }
        return save(next, expected);
      },
    };

    const refused = await refusal(cancelDeposit(request(deposit.id), ctx));

    expect(refused).toMatchObject({ type: 'DEPOSIT_NOT_CANCELLABLE' });
    expect(w.table.current(deposit.id)).toMatchObject({ step: 'transfer', status: 'initialized' });
  });

  it('answers the cancelled deposit, never an error, when what follows its landed write fails', async () => {
    // prepare: the claim's release and the schedules' deletion fail (injected: the fakes do not fail)
    const w = world();
    const deposit = await w.deposit({ step: 'ensure-beneficiary', bank: banks.beneficiary, version: 3 });
    const ctx = w.contexts.cancel();
    ctx.claims = {
      release: async () => {
        throw new Error('DynamoDB throttled the release');
      },
    };
    ctx.schedules.cancel = async () => {
      throw new Error('the scheduler is unreachable');
    };

    // act
    const answer = await cancelDeposit(request(deposit.id), ctx);

    // assess
    expect(answer).toMatchObject({ status: 'failed', type: 'CANCELLED' });
    expectCancelled(w, deposit.id);
  });
});

describe('list', () => {
  async function connectionWith(w: World, count: number) {
    const made: Deposit[] = [];
    for (let index = 0; index < count; index += 1) {
      made.push(await w.deposit());
      w.clock.advance(1_000);
    }
    return made;
  }

  it("answers the connection's deposits newest first, a page at a time, with a cursor until the last", async () => {
    const w = world();
    const made = await connectionWith(w, 5);
    // Another connection's deposit is never listed.
    await w.deposit({ ownerKey: ownerDigests.of('another-token') });
    const list = (cursor?: string) =>
      listDeposits(
        { accessToken: credentials.accessToken, userSecret: credentials.userSecret, limit: 2, cursor },
        w.contexts.list(),
      );

    const first = await list();
    const second = await list(first.cursor);
    const third = await list(second.cursor);

    const ids = (page: typeof first) => page.deposits.map((deposit) => deposit.operationID);
    const newestFirst = made.map((deposit) => deposit.id).reverse();
    expect([ids(first), ids(second), ids(third)]).toEqual([
      newestFirst.slice(0, 2),
      newestFirst.slice(2, 4),
      newestFirst.slice(4),
    ]);
    expect(first.cursor).toEqual(expect.any(String));
    expect(third.cursor).toBeUndefined();
    expect(first.deposits[0]).toMatchObject({ status: 'initialized', amount: 25.5, currency: 'AED' });
  });

  it('refuses a cursor it did not give, naming the field', async () => {
    const w = world();
    const refused = await refusal(
      listDeposits(
        {
          accessToken: credentials.accessToken,
          userSecret: credentials.userSecret,
          limit: 2,
          cursor: 'not-a-cursor',
        },
        w.contexts.list(),
      ),
    );

    expect(refused).toMatchObject({ type: 'INVALID_CURSOR', details: ['cursor'] });
  });

  it('answers an empty list to a connection without deposits, and leaves out a deposit of another user secret', async () => {
    const w = world();
    await w.deposit({ readerKey: ownerDigests.of('another-secret') });

    const page = await listDeposits(
      { accessToken: credentials.accessToken, userSecret: credentials.userSecret, limit: 20 },
      w.contexts.list(),
    );
    const none = await listDeposits(
      { accessToken: 'no-deposits', userSecret: credentials.userSecret, limit: 20 },
      w.contexts.list(),
    );

    expect(page).toEqual({ deposits: [] });
    expect(none).toEqual({ deposits: [] });
  });
});
