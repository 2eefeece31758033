/**
 * The chaos run's evidence of a lost transfer answer (`infra/local/crash-wrappers.ts`): it names the
 * deposit whose submission it was, even when another deposit of the same connection opens its
 * attempt while that submission is still out (the lease ran out under it: a move of the local clock
 * past the lease's time, as the chaos run makes). The deposit table and the provider are replaced
 * here by scripted ones: the interleaving cannot be set up over the real ones at will.
 */
import { describe, expect, it } from 'vitest';

process.env.OWNER_KEY = Buffer.alloc(32, 'unit-test-owner-key').toString('base64');

const { crashPoints } = await import('#infra/local/crash-points');
const { installCrashPoints } = await import('#infra/local/crash-wrappers');
const { DepositItems } = await import('#shared/adapters/deposit-items');
const { ProviderClient } = await import('#shared/provider/client');
const { ProviderUnknownOutcome } = await import('#shared/provider/outcomes');
const { credentials, world } = await import('../support/deposit-world.ts');

/** Each submission waits until the test ends it. */
const submissions: Array<(error: Error) => void> = [];
ProviderClient.prototype.createTransfer = () =>
  new Promise((_resolve, reject) => {
    submissions.push(reject);
  });
DepositItems.prototype.save = async () => true;
installCrashPoints();
const records = new DepositItems({ client: {} as never, tableName: 'deposits' });
const provider = new ProviderClient({ baseUrl: 'http://provider.invalid', timeoutMs: 3_000 });
const attempt = { attempt: { at: 1, answering: false } };
const order = { amountMinor: 100, currency: 'AED' as const, senderID: 'acc-1', receiverID: 'ben-1' };

describe('the evidence of a lost transfer answer', () => {
  it('names the deposit that submitted, not the connection’s attempt opened after it', async () => {
    // prepare: two deposits of one connection at their transfer
    const w = world();
    const first = await w.deposit({ step: 'transfer', version: 4 });
    const second = await w.deposit({ step: 'transfer', version: 4 });

    // act: the first records its attempt and submits; while its submission is out, the second records
    // its attempt; then the first's submission times out
    await records.save({ ...first, version: 5, transfer: attempt }, 4);
    const submitted = provider.createTransfer(credentials, order, undefined, { sync: false });
    await records.save({ ...second, version: 5, transfer: attempt }, 4);
    submissions[0]?.(new ProviderUnknownOutcome('timeout', 'no answer within 3000 ms'));
    await expect(submitted).rejects.toBeInstanceOf(ProviderUnknownOutcome);

    // assess
    expect(crashPoints.report().lostAnswers.map((lost) => lost.depositId)).toEqual([first.id]);
  });
});
