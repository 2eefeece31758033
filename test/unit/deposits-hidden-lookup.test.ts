/**
 * The look-up of a beneficiary the bank hides until its cool-down ends, when the bank asks a question
 * on its list: the deposit leaves wait-cooldown before the look-up's call, so the question waits at
 * the step that asked (ensure-beneficiary), the caller's answer resumes it there, and a re-drive
 * (the question's expiry) goes to that step's queue. (These failed before: the deposit paused at
 * wait-cooldown, whose resume asks nothing, and whose consumer drops the expiry.)
 */
import { describe, expect, it } from 'vitest';
import { redriveMessage } from '#shared/deposits/background/sweeper';
import { ensureBeneficiary } from '#shared/deposits/steps/ensure-beneficiary';
import { answers, banks, question, walletListing, world } from '../support/deposit-world.ts';

type World = ReturnType<typeof world>;

const created = answers.done({ jobID: 'j', success: true, status: 'done' });

/** A deposit at a bank that hides new beneficiaries, its creation made, woken for the look-up. */
async function wokenForLookUp(w: World) {
  const deposit = await w.deposit({ step: 'ensure-beneficiary', bank: banks.hiddenCoolDown });
  w.provider.answer('createBeneficiary', created);
  await ensureBeneficiary(deposit, w.contexts.ensureBeneficiary());
  const cooling = w.table.current(deposit.id);
  w.clock.set(cooling.beneficiaryWork?.lookupAt ?? 0);
  return cooling;
}

describe('a question on the look-up, at a bank that hides new beneficiaries', () => {
  it('waits at ensure-beneficiary, not at wait-cooldown; its expiry goes to that step', async () => {
    // prepare
    const w = world();
    const cooling = await wokenForLookUp(w);
    expect(cooling.step).toBe('wait-cooldown');
    w.provider.answer('listBeneficiaries', answers.question('op-l'));

    // act
    await ensureBeneficiary(cooling, w.contexts.ensureBeneficiary());

    // assess
    const asking = w.table.current(cooling.id);
    expect(asking).toMatchObject({
      status: 'user_input_required',
      step: 'ensure-beneficiary',
      pendingInput: { providerOperationId: 'op-l', operation: 'list' },
    });
    expect(asking.history.map((entry) => entry.note)).toContain('cool-down over: looking the beneficiary up');
    expect(redriveMessage(asking)).toEqual({
      depositId: cooling.id,
      step: 'ensure-beneficiary',
      version: asking.version,
      kind: 'expire-input',
    });
  });

  it('answered: the list again with the answers, the beneficiary found, on to the transfer; created once', async () => {
    const w = world();
    const cooling = await wokenForLookUp(w);
    w.provider.answer('listBeneficiaries', answers.question('op-l'), walletListing('ben-5'));
    await ensureBeneficiary(cooling, w.contexts.ensureBeneficiary());
    const asking = w.table.current(cooling.id);
    const sealedAnswers = await w.vault.seal('answers', asking.id, [{ ...question[0], answer: '123456' }]);
    const answered = w.table.put({ ...asking, status: 'initialized', sealedAnswers });

    await ensureBeneficiary(answered, w.contexts.ensureBeneficiary());

    expect(w.provider.callsOf('listBeneficiaries')[1]?.[1]).toMatchObject({ id: 'op-l' });
    expect(w.table.current(cooling.id)).toMatchObject({ step: 'transfer', beneficiaryId: 'ben-5' });
    expect(w.provider.callsOf('createBeneficiary')).toHaveLength(1);
  });

  it('woken before the cool-down ends: waits again, still at wait-cooldown, nothing called', async () => {
    const w = world();
    const cooling = await wokenForLookUp(w);
    w.clock.advance(-5_000);
    const ctx = w.contexts.ensureBeneficiary();

    await ensureBeneficiary(cooling, ctx);

    expect(w.table.current(cooling.id)).toMatchObject({ step: 'wait-cooldown', version: cooling.version });
    expect(w.provider.callsOf('listBeneficiaries')).toEqual([]);
    expect(ctx.queues.sent.map((sent) => sent.message.step)).toEqual(['ensure-beneficiary']);
  });
});
