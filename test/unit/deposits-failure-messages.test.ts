/**
 * What an owner hears of a failure: its type and a message from a fixed set, in the deposit's view
 * and in its event; the detail (an exception's text, an ARN, the bank's own words) stays on the
 * record, which the operators' view shows.
 */
import { describe, expect, it } from 'vitest';
import { giveUp } from '#shared/deposits/journey/transitions';
import { ownerMessage } from '#shared/deposits/model/failures';
import { depositView } from '#shared/deposits/model/views';
import { operatorView } from '#shared/operator/model';
import { errorTypes } from '#shared/provider/interface/errors';
import { banks, world } from '../support/deposit-world.ts';

const arn = 'arn:aws:sts::123456789012:assumed-role/deposits-transfer/i-0abc';
const internal = `The transfer step failed on each of its 5 tries: AccessDeniedException: User: ${arn} is not authorized to perform: kms:Decrypt`;

describe('a failure as its owner hears it', () => {
  it("keeps an exception's text and its ARN from the owner's view and event, for the operators' view", async () => {
    // prepare
    const w = world();
    const deposit = await w.deposit({ step: 'ensure-beneficiary', bank: banks.beneficiary });

    // act
    await giveUp(w.contexts.ensureBeneficiary(), deposit, internal);

    // assess
    const stored = w.table.current(deposit.id);
    const owner = depositView(stored, w.clock.now());
    const event = w.events.published.at(-1);
    expect(stored.failure).toEqual({ type: 'STEP_FAILED', msg: internal });
    expect(owner).toMatchObject({
      type: 'STEP_FAILED',
      msg: 'The deposit could not go on; the operators are alerted',
    });
    expect(event).toMatchObject({ type: 'deposit.failed', data: { type: 'STEP_FAILED', msg: owner.msg } });
    expect(JSON.stringify([owner, event])).not.toContain('arn:');
    expect(operatorView(stored, w.clock.now()).msg).toBe(internal);
  });

  it("gives a bank's refusal the spec's message of its type, and any other type a plain one", () => {
    expect(ownerMessage('INSUFFICIENT_BALANCE')).toBe(errorTypes.INSUFFICIENT_BALANCE.msg);
    expect(ownerMessage('SOMETHING_NEW')).toBe('The deposit failed');
  });
});
