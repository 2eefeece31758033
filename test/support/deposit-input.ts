/**
 * What the caller's-part unit files share: an answered OTP, a deposit paused at the bank's question
 * with its expiry message.
 */
import type { StepMessage } from '#shared/deposits/model/messages';
import { ensureBeneficiary } from '#shared/deposits/steps/ensure-beneficiary';
import { answers, banks, question, type World } from './deposit-world.ts';

export const otp = question.map((input) => ({ ...input, answer: '123456' }));

/** A deposit paused by ensure-beneficiary at the bank's question, as the step leaves it, and its expiry message. */
export async function pausedAtBeneficiary(w: World) {
  const ctx = w.contexts.ensureBeneficiary();
  const deposit = await w.deposit({ step: 'ensure-beneficiary', bank: banks.beneficiary });
  w.provider
    .answer(
      'listBeneficiaries',
      answers.done({ jobID: 'j', success: true, status: 'done', beneficiaries: [] }),
    )
    .answer('createBeneficiary', answers.question('op-q'));
  await ensureBeneficiary(deposit, ctx);
  const expiry = ctx.queues.sent.at(-1)?.message;
  if (expiry?.kind !== 'expire-input') throw new Error('the step armed no expiry');
  ctx.queues.sent.length = 0;
  w.table.writes.length = 0;
  return {
    ctx,
    paused: w.table.current(deposit.id),
    expiry: expiry as StepMessage & { step: 'ensure-beneficiary' },
  };
}
