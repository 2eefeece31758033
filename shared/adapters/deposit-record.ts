/**
 * A deposit's item as the table holds it, read through a schema: every field the domain relies on
 * is checked for its type, so that an item written by hand, damaged, or by a release that wrote
 * another shape fails on read with the field named, not deep in a step. Fields it does not know are
 * kept as they are (a release rolled out beside this one may have written them, and a write of the
 * deposit puts them back), inside the groups of its step scratch too. An item of the shape before
 * this one is read too, for one release (`fromPreviousShape`).
 */
import * as z from 'zod';
import { type Deposit, DepositStatus, DepositStep } from '#shared/deposits/model/deposit';
import { DepositEvent } from '#shared/deposits/model/events';
import { type CurrencyCode, isCurrencyCode } from '#shared/money';
import { fromItem } from './deposits-table-items.ts';

const count = z.number().int().nonnegative();
const instant = z.number();

const BankFacts = z.object({
  swiftCode: z.string(),
  bankName: z.string(),
  isCreateBeneficiaryEndpointRequired: z.boolean(),
  hidesNewBeneficiaries: z.boolean(),
  coolDownMs: z.number().nonnegative(),
});

const PendingInput = z.object({
  providerOperationId: z.string(),
  operation: z.enum(['metadata', 'list', 'create', 'transfer']).optional(),
  userInputs: z.array(z.object({ id: z.string(), index: z.number(), query: z.string() })),
  expiresAt: instant,
});

const Resolution = z.object({
  outcome: z.enum(['done', 'failed']),
  by: z.string(),
  reason: z.string(),
  at: instant,
  approval: z.object({ by: z.string(), reason: z.string(), at: instant }).optional(),
});

export const DepositRecord = z.looseObject({
  id: z.string().min(1),
  purpose: z.literal('source').optional(),
  ownerKey: z.string().min(1),
  readerKey: z.string().min(1),
  backendKey: z.string().optional(),
  idempotencyKey: z.string(),
  fingerprint: z.string(),
  clientReference: z.string().optional(),
  metadata: z.record(z.string(), z.string()).optional(),
  status: DepositStatus,
  step: DepositStep,
  version: count,
  amountMinor: count,
  currency: z.custom<CurrencyCode>((value) => typeof value === 'string' && isCurrencyCode(value)),
  senderId: z.string(),
  walletAccountId: z.string(),
  sealedCredentials: z.string().optional(),
  sealedAnswers: z.string().optional(),
  bank: BankFacts.optional(),
  beneficiaryId: z.string().optional(),
  beneficiaryWork: z
    .looseObject({
      lookupAt: instant.optional(),
      sendDetails: z.boolean().optional(),
      sleepsUntil: instant.optional(),
      claimWaits: count.optional(),
    })
    .optional(),
  cooldownUntil: instant.optional(),
  pendingInput: PendingInput.optional(),
  leaseHeld: z.string().optional(),
  transfer: z
    .looseObject({
      attempt: z.object({ at: instant, answering: z.boolean() }).optional(),
      operationId: z.string().optional(),
      polls: count.optional(),
      pollAt: instant.optional(),
    })
    .optional(),
  stepCounters: z.looseObject({ retries: count, busyWaits: count.optional() }),
  tallies: z
    .looseObject({
      coolDownRefusals: count.optional(),
      reasks: count.optional(),
      registrations: count.optional(),
    })
    .optional(),
  redrives: count.optional(),
  reference: z.string().optional(),
  failure: z.object({ type: z.string(), msg: z.string() }).optional(),
  history: z.array(
    z.object({ step: DepositStep, status: DepositStatus, at: instant, note: z.string().optional() }),
  ),
  createdAt: instant,
  updatedAt: instant,
  writeId: z.string().optional(),
  checkAt: instant.optional(),
  event: DepositEvent.optional(),
  resolution: Resolution.optional(),
  pendingResolution: z
    .object({
      outcome: z.literal('done'),
      reference: z.string(),
      by: z.string(),
      reason: z.string(),
      at: instant,
    })
    .optional(),
  trace: z.string().optional(),
});

/**
 * The shape before 2026-11-27, read for one release: then this function and its one call go. Its
 * step scratch was flat on the item; it is grouped now (`shared/deposits/model/deposit-work.ts`), and
 * its flat fields are moved into their groups here (a group only when one of its fields is there),
 * so the deposit reads as one of this shape and its next write stores it so. Every item of that shape
 * has `retries` at its top, and no item of this one: any other item is left as it is.
 */
function fromPreviousShape(record: Record<string, unknown>): Record<string, unknown> {
  if (!('retries' in record)) return record;
  const groups = {
    transfer: {
      transferAttempt: 'attempt',
      transferOperationId: 'operationId',
      polls: 'polls',
      pollAt: 'pollAt',
    },
    beneficiaryWork: {
      beneficiaryLookupAt: 'lookupAt',
      sendBeneficiaryDetails: 'sendDetails',
      sleepsUntil: 'sleepsUntil',
      claimWaits: 'claimWaits',
    },
    stepCounters: { retries: 'retries', busyWaits: 'busyWaits' },
    tallies: { coolDownRefusals: 'coolDownRefusals', reasks: 'reasks', registrations: 'registrations' },
  };
  const flat = new Set(Object.values(groups).flatMap((fields) => Object.keys(fields)));
  const moved = Object.fromEntries(Object.entries(record).filter(([name]) => !flat.has(name)));
  for (const [group, fields] of Object.entries(groups)) {
    const found = Object.entries(fields).filter(([old]) => record[old] !== undefined);
    if (found.length > 0) moved[group] = Object.fromEntries(found.map(([old, name]) => [name, record[old]]));
  }
  return moved;
}

/** The deposit a deposit's item holds (none for no item), or why it is not one. */
export function depositFromItem(item: Record<string, unknown> | undefined): Deposit | undefined {
  const record = fromItem<Record<string, unknown>>(item);
  if (!record) return undefined;
  const parsed = DepositRecord.safeParse(fromPreviousShape(record));
  if (parsed.success) return parsed.data;
  const where = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ');
  throw new Error(`deposit ${String(record.id)} is stored in a shape this release cannot read (${where})`);
}
