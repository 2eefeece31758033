/**
 * When the sweeper looks at a deposit nothing moved (`checkAt`): after the latest of the waits it
 * records, plus the stall time, whatever its step. (The wait-cooldown case failed before: a deposit
 * there asleep on another deposit's claim past its own cool-down was looked at too early, re-driven
 * without moving until it failed STEP_FAILED.)
 */
import { describe, expect, it } from 'vitest';
import { checkAt } from '#shared/deposits/journey/transitions';
import type { Deposit } from '#shared/deposits/model/deposit';
import { settings, world } from '../support/deposit-world.ts';

const stall = settings.stallAfterMs;

describe('checkAt', () => {
  const now = 1_800_000_000_000;
  const cases: { label: string; fields: Partial<Deposit>; waitsUntil: number }[] = [
    { label: 'nothing to wait for', fields: { step: 'transfer' }, waitsUntil: now },
    {
      label: 'a cool-down',
      fields: { step: 'wait-cooldown', cooldownUntil: now + 60_000 },
      waitsUntil: now + 60_000,
    },
    {
      label: "at wait-cooldown, asleep on another deposit's claim past its own cool-down",
      fields: {
        step: 'wait-cooldown',
        cooldownUntil: now + 60_000,
        beneficiaryWork: { sleepsUntil: now + 600_000 },
      },
      waitsUntil: now + 600_000,
    },
    {
      label: 'at wait-cooldown, its look-up after its cool-down',
      fields: {
        step: 'wait-cooldown',
        cooldownUntil: now + 60_000,
        beneficiaryWork: { lookupAt: now + 61_000 },
      },
      waitsUntil: now + 61_000,
    },
    {
      label: 'asleep, with a look-up sooner',
      fields: {
        step: 'ensure-beneficiary',
        beneficiaryWork: { lookupAt: now + 5_000, sleepsUntil: now + 90_000 },
      },
      waitsUntil: now + 90_000,
    },
    {
      label: 'a read of the transfer',
      fields: { step: 'reconcile', transfer: { pollAt: now + 16_000 } },
      waitsUntil: now + 16_000,
    },
    {
      label: "waiting for its caller's answer",
      fields: {
        step: 'transfer',
        status: 'user_input_required',
        pendingInput: { providerOperationId: 'op', userInputs: [], expiresAt: now + 30_000 },
      },
      waitsUntil: now + 30_000,
    },
    {
      label: 'a wait already past',
      fields: { step: 'wait-cooldown', cooldownUntil: now - 5_000 },
      waitsUntil: now,
    },
  ];

  it.for(cases)('$label', async ({ fields, waitsUntil }) => {
    const w = world();
    const deposit = await w.deposit(fields);

    expect(checkAt(deposit, now, stall)).toBe(waitsUntil + stall);
  });
});
