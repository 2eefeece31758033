/**
 * Payment sources through the fakes of the deposit's ports: the sources API's start, read and list,
 * and the owner's cancel of a source.
 */
import { describe, expect, it } from 'vitest';
import { DepositError } from '#shared/deposits/model/errors';
import { cancelDeposit, cancelSource } from '#shared/deposits/requests/cancel';
import { listDeposits, listSources, readDeposit, readSource } from '#shared/deposits/requests/read';
import { startDeposit, startSource } from '#shared/deposits/requests/start';
import { coolingUntil, credentials, world } from '../support/deposit-world.ts';

describe('the sources API', () => {
  const request = { ...credentials, idempotencyKey: 'src-key' };

  it('starts a source once per key, resumes it with answers, and refuses the key for a deposit', async () => {
    // prepare
    const w = world();
    const ctx = w.contexts.start();

    // act
    const first = await startSource(request, ctx);
    const again = await startSource(request, ctx);

    // assess
    expect(first).toMatchObject({
      started: true,
      view: { status: 'initialized', walletAccountID: 'wallet-aed' },
    });
    expect(again).toMatchObject({ started: false, view: { sourceID: first.view.sourceID } });
    expect(first.view.sourceID).toMatch(/^src_/);
    expect(w.table.current(first.view.sourceID)).toMatchObject({ purpose: 'source', amountMinor: 0 });
    expect(ctx.queues.sent.map((sent) => sent.message.step)).toEqual(['resolve-bank']);
    await expect(startDeposit({ ...request, amount: 10, senderID: 'acc-1' }, ctx)).rejects.toMatchObject({
      type: 'IDEMPOTENCY_KEY_REUSED',
    });
  });

  it('reads and lists sources apart from deposits', async () => {
    const w = world();
    const src = await w.source();
    const dep = await w.deposit();
    const reading = { accessToken: credentials.accessToken, userSecret: credentials.userSecret };
    const ctx = { ...w.contexts.read(), ...w.contexts.list() };

    const sources = await listSources({ ...reading, limit: 10 }, ctx);
    const deposits = await listDeposits({ ...reading, limit: 10 }, ctx);

    expect(sources.sources.map((s) => s.sourceID)).toEqual([src.id]);
    expect(deposits.deposits.map((d) => d.operationID)).toEqual([dep.id]);
    expect((await readSource({ ...reading, sourceId: src.id }, ctx)).sourceID).toBe(src.id);
    await expect(readSource({ ...reading, sourceId: dep.id }, ctx)).rejects.toThrow(DepositError);
    await expect(readDeposit({ ...reading, depositId: src.id }, ctx)).rejects.toMatchObject({
      type: 'DEPOSIT_NOT_FOUND',
    });
  });
});

describe("the owner's cancel of a source", () => {
  const owner = { accessToken: credentials.accessToken, userSecret: credentials.userSecret };

  it('ends a source cooling down: failed CANCELLED in the source view, its caller told', async () => {
    // prepare
    const w = world();
    const src = await w.source({ ...coolingUntil(w.clock.now() + 3_600_000) });

    // act
    const answer = await cancelSource({ ...owner, sourceId: src.id }, w.contexts.cancel());

    // assess
    expect(answer).toMatchObject({ sourceID: src.id, status: 'failed', type: 'CANCELLED' });
    expect(w.table.current(src.id)).toMatchObject({ status: 'failed', sealedCredentials: undefined });
  });

  it('refuses a ready source, and keeps each route to its own kind: a source is no deposit, a deposit no source', async () => {
    // prepare
    const w = world();
    const ready = await w.source({ step: 'completed', status: 'done' });
    const dep = await w.deposit();
    const ctx = w.contexts.cancel();

    // act
    const refusals = await Promise.all([
      cancelSource({ ...owner, sourceId: ready.id }, ctx).catch((error: DepositError) => error.type),
      cancelSource({ ...owner, sourceId: dep.id }, ctx).catch((error: DepositError) => error.type),
      cancelDeposit({ ...owner, depositId: ready.id }, ctx).catch((error: DepositError) => error.type),
    ]);

    // assess: nothing moved
    expect(refusals).toEqual(['SOURCE_NOT_CANCELLABLE', 'SOURCE_NOT_FOUND', 'DEPOSIT_NOT_FOUND']);
    expect(w.table.current(dep.id)).toMatchObject({ status: 'initialized', version: dep.version });
    expect(w.table.current(ready.id)).toMatchObject({ status: 'done', version: ready.version });
  });
});
