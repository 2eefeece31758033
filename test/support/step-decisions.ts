/**
 * What the steps' decision tables share: a fixed clock, a deposit at a step, a refusal of the bank,
 * a transfer's call, the fields a settled transfer clears.
 */
import type { Deposit } from '#shared/deposits/model/deposit';
import type { Call } from '#shared/deposits/steps/transfer';
import { ProviderRefusal } from '#shared/provider/client';
import { banks } from './deposit-world.ts';

export const now = Date.parse('2026-11-26T12:00:00Z');
export const clock = { now: () => now, sleep: async () => undefined };

export function deposit(overrides: Partial<Deposit> = {}): Deposit {
  return {
    id: 'dep_1',
    ownerKey: 'owner',
    readerKey: 'reader',
    idempotencyKey: 'key',
    fingerprint: 'f',
    status: 'initialized',
    step: 'transfer',
    version: 4,
    amountMinor: 2550,
    currency: 'AED',
    senderId: 'acc-1',
    walletAccountId: 'wallet-aed',
    bank: banks.beneficiary,
    beneficiaryId: 'ben-1',
    stepCounters: { retries: 0 },
    history: [],
    createdAt: now - 60_000,
    updatedAt: now - 1_000,
    ...overrides,
  } as Deposit;
}

export const refusal = (
  type: string,
  extra: { status?: number; retryAfterMs?: number; operationId?: string } = {},
) =>
  new ProviderRefusal(
    type,
    `${type} said the bank`,
    extra.status ?? 400,
    extra.operationId,
    extra.retryAfterMs,
  );

export const call: Call = { lease: 'dep_1#transfer', answer: undefined, now };
export const cleared = {
  transfer: undefined,
  pendingInput: undefined,
  sealedAnswers: undefined,
};
