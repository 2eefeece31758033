/**
 * The chaos audit bites: from a clean outcome it finds nothing, and a deposit or source with the
 * evidence for what it went through passes. Each broken invariant planted in an otherwise clean
 * outcome is a finding that names its deposit (`audit-findings.test.ts`); the clock's jumps are
 * measured in `audit-clock-jumps.test.ts`. (Pure: no stack.)
 */
import { describe, expect, it } from 'vitest';
import { audit, type SourceRun } from './audit.ts';
import {
  cleanOutcome,
  creation,
  decoyedAndAmbiguous,
  noted,
  unknownOutcome,
  withSource,
} from './audit-world.ts';
import type { TableItem } from './clients.ts';
import type { PlannedUser } from './plan.ts';

describe('the chaos audit', () => {
  it('finds nothing in a clean outcome', () => {
    expect(audit(cleanOutcome()).failures).toEqual([]);
  });

  it('passes an unknown transfer outcome with evidence of its own: its workers killed with its attempt open', () => {
    const input = cleanOutcome();
    unknownOutcome(input);
    input.crashes.deaths.push({
      point: 'after-provider-call',
      step: 'transfer',
      ownerKey: 'owner',
      at: 0,
      how: 'killed',
      attemptsOpen: ['dep_1'],
    });
    expect(audit(input).failures).toEqual([]);
  });

  it('passes a second creation of the beneficiary with a recorded reason: the bank said it was gone', () => {
    const input = cleanOutcome();
    input.ledgers.get(0)?.beneficiaryCreations?.push(creation('created'));
    noted(input, 'the bank says the beneficiary is gone: registering it again');
    expect(audit(input).failures).toEqual([]);
  });

  it("passes a creation whose answer was lost, made again and refused as existing (a bank's 5xx)", () => {
    const input = cleanOutcome();
    input.ledgers.get(0)?.beneficiaryCreations?.push(creation('refused', 'BENEFICIARY_ALREADY_EXISTS'));
    (input.items[0] as TableItem).history = [
      { step: 'ensure-beneficiary', status: 'initialized', at: 0, note: 'provider server_error' },
      { step: 'completed', status: 'done', at: 1 },
    ];
    expect(audit(input).failures).toEqual([]);
  });

  it('counts a workers’ process killed while deposits stood at ensure-beneficiary once', () => {
    const input = cleanOutcome();
    const creations = input.ledgers.get(0)?.beneficiaryCreations;
    creations?.push(creation('refused', 'BENEFICIARY_ALREADY_EXISTS'));
    for (const item of input.items as TableItem[])
      item.history = [
        { step: 'ensure-beneficiary', status: 'initialized', at: 100 },
        { step: 'completed', status: 'done', at: 300 },
      ];
    // Another user's crash point: the process took every step it had in hand.
    input.crashes.deaths.push({
      point: 'after-state-write',
      step: 'transfer',
      ownerKey: 'other',
      depositId: 'dep_other',
      at: 200,
      how: 'killed',
      attemptsOpen: [],
    });
    expect(audit(input).failures).toEqual([]);

    creations?.push(creation('refused', 'BENEFICIARY_ALREADY_EXISTS'));
    expect(audit(input).failures).toEqual([
      expect.stringMatching(/create again without a recorded reason.*3 creations.*for 1 recorded reasons/),
    ]);
  });

  it('passes BENEFICIARY_AMBIGUOUS at a masked bank once its user’s record was forgotten', () => {
    const input = cleanOutcome();
    decoyedAndAmbiguous(input);
    (input.items[1] as TableItem).history = [
      {
        step: 'ensure-beneficiary',
        status: 'initialized',
        at: 0,
        note: 'the bank says the beneficiary is gone: registering it again',
      },
    ];
    expect(audit(input).failures).toEqual([]);
  });

  it('passes an unknown transfer outcome with evidence of its own: its submission’s answer lost', () => {
    const input = cleanOutcome();
    unknownOutcome(input);
    input.crashes.lostAnswers.push({ ownerKey: 'owner', depositId: 'dep_1', reason: 'timeout', at: 0 });
    expect(audit(input).failures).toEqual([]);
  });

  it('passes an unknown transfer outcome with evidence of its own: a DynamoDB fault with its attempt open', () => {
    const input = cleanOutcome();
    unknownOutcome(input);
    const fault = { kind: 'transaction-conflict' as const, ownerKey: 'owner', depositIds: ['dep_1'], at: 0 };
    input.dynamoDbFaults = { fired: { 'transaction-conflict': 1 }, armed: 0, inAttempts: [fault] };
    expect(audit(input).failures).toEqual([]);
  });

  it('passes a source that ended ready, heard, whose follower moved within the stall time of its instant', () => {
    const input = cleanOutcome();
    withSource(input, 6);
    expect(audit(input).failures).toEqual([]);
  });

  it('passes a source planned to lose its schedule whose wake-up was never armed (its worker died first)', () => {
    const input = cleanOutcome();
    withSource(input, 6);
    (input.plan.users[0] as PlannedUser).source = {
      when: 'first',
      fails: false,
      idempotencyKey: 'src',
      losesSchedule: true,
    };
    Object.assign(input.sources.at(-1) as SourceRun, {
      scheduleDeleted: false,
      scheduleNeverArmed: 'wait-cooldown v3 until 2026-11-28T09:31:17.833Z',
    });
    expect(audit(input).failures).toEqual([]);
  });
});
