/**
 * The operator API's requests and answers (`/work/plan/operator-api.md` is their contract). Every
 * request field is bounded, checked before anything is read; an answer is `operatorView`'s shape.
 */
import * as z from 'zod';
import { DepositStep } from '#shared/deposits/model/deposit';
import { DepositEvent } from '#shared/deposits/model/events';
import { StatusBucket } from '#shared/operator/model';
import { inputLimits } from '#shared/provider/interface/limits';
import { boundedText } from '#shared/provider/interface/schemas';
import { DepositAnyStatus } from './deposits-schemas.ts';

const id = boundedText(inputLimits.id);
/** Why an operator acts: recorded on the deposit, told to its caller. */
const reason = boundedText(500);
const instant = z.iso.datetime({ offset: true });

/** The steps a list may filter on: the deposit's own, and the reconcile step of the contract. */
export const StepFilter = z.enum([...new Set([...DepositStep.options, 'reconcile'] as const)]);

/** How many deposits a list answers at most, and by default. */
export const OPERATOR_LIST_LIMIT = { max: 100, default: 50 };

export const ListRequest = z
  .strictObject({
    status: StatusBucket,
    step: StepFilter.optional(),
    /** Created at or after this instant. */
    from: instant.optional(),
    /** Created before this instant. */
    to: instant.optional(),
    limit: z.number().int().min(1).max(OPERATOR_LIST_LIMIT.max).default(OPERATOR_LIST_LIMIT.default),
    /** The `cursor` of the previous page's answer. */
    cursor: boundedText(512).optional(),
  })
  .refine((body) => !body.from || !body.to || Date.parse(body.from) < Date.parse(body.to), {
    message: 'from must be before to',
    path: ['to'],
  });
export type ListRequest = z.infer<typeof ListRequest>;

export const GetRequest = z.strictObject({ operationID: id });

export const ResolveRequest = z
  .strictObject({
    operationID: id,
    outcome: z.enum(['done', 'failed']),
    /** The transfer's reference at the bank: required when the money moved. */
    reference: boundedText(inputLimits.text).optional(),
    reason,
  })
  .refine((body) => body.outcome !== 'done' || body.reference !== undefined, {
    message: 'reference is required when the outcome is done',
    path: ['reference'],
  });
export type ResolveRequest = z.infer<typeof ResolveRequest>;

export const CancelRequest = z.strictObject({ operationID: id, reason });

export const RedriveRequest = z.strictObject({ operationID: id });

export const QueuesRequest = z.strictObject({});

export const DeliveriesRequest = z.strictObject({ operationID: id });

export const ResendRequest = z.strictObject({
  operationID: id,
  /** The event's id, `<operationID>.v<version>`, as a delivery names it. */
  eventId: boundedText(inputLimits.id + 16),
});

export const StatsRequest = z
  .strictObject({
    step: StepFilter.optional(),
    /** Created at or after this instant. */
    from: instant.optional(),
    /** Created before this instant. */
    to: instant.optional(),
  })
  .refine((body) => !body.from || !body.to || Date.parse(body.from) < Date.parse(body.to), {
    message: 'from must be before to',
    path: ['to'],
  });

// ---------------------------------------------------------------------------------------------
// Answers

const at = z.iso.datetime();

export const OperatorDeposit = DepositAnyStatus.extend({
  version: z.number().int().nonnegative(),
  /** The first 12 characters of the owner's digest: groups a connection's deposits. */
  connection: z.string(),
  bankName: z.string().optional(),
  coolDownUntil: at.optional(),
  sleepsUntil: at.optional(),
  /** When the sweeper looks at it next, while in flight. */
  checkAt: at.optional(),
  retries: z.number().int().nonnegative(),
  busyWaits: z.number().int().nonnegative().optional(),
  reasks: z.number().int().nonnegative().optional(),
  redrives: z.number().int().nonnegative().optional(),
  coolDownRefusals: z.number().int().nonnegative().optional(),
  /** Reconcile polls so far. */
  polls: z.number().int().nonnegative().optional(),
  /** When the next read of the transfer operation is due. */
  pollAt: at.optional(),
  /** `source` for a payment source, which runs the deposit's steps up to the transfer. */
  purpose: z.literal('source').optional(),
  transferAttempt: z.object({ at, answering: z.boolean() }).optional(),
  /** The provider's operationID of the transfer. */
  transferOperationId: z.string().optional(),
  beneficiaryId: z.string().optional(),
  /** Who resolved it, why and when; and, for a `done` above the approval threshold, who approved it. */
  resolution: z
    .object({
      outcome: z.enum(['done', 'failed']),
      by: z.string(),
      reason: z.string(),
      at,
      approval: z.object({ by: z.string(), reason: z.string(), at }).optional(),
    })
    .optional(),
  /** A resolution to `done` above the approval threshold, waiting for a second operator until `expiresAt`. */
  pendingResolution: z
    .object({
      outcome: z.literal('done'),
      reference: z.string(),
      by: z.string(),
      reason: z.string(),
      at,
      expiresAt: at,
    })
    .optional(),
}).meta({ id: 'OperatorDeposit' });

export const OperatorDepositList = z
  .object({
    deposits: z.array(OperatorDeposit),
    /** There while more may follow: send it back, with the same filters, for the next page. */
    cursor: z.string().optional(),
    /** The service's time as it answered (the local stack's movable clock): what countdowns count from. */
    now: at,
  })
  .meta({ id: 'OperatorDepositList' });

export const Redriven = z
  .object({
    operationID: z.string(),
    step: DepositStep.exclude(['completed']),
    version: z.number().int().nonnegative(),
    redriven: z.literal(true),
  })
  .meta({ id: 'Redriven' });

export const QueueDepths = z
  .object({
    queues: z.array(
      z.object({
        name: z.string(),
        visible: z.number().int().nonnegative(),
        inFlight: z.number().int().nonnegative(),
        delayed: z.number().int().nonnegative(),
        dlq: z.object({ name: z.string(), visible: z.number().int().nonnegative() }),
      }),
    ),
  })
  .meta({ id: 'QueueDepths' });

const count = z.number().int().nonnegative();

export const Deliveries = z
  .object({
    operationID: z.string(),
    /** The service's time as it answered: what the countdown to a next try counts from. */
    now: at,
    /** One per event the notifier tried to deliver, in the deposit's order. */
    deliveries: z.array(
      z.object({
        /** `<operationID>.v<version>`: the `webhook-id` the receiver de-duplicates on. */
        eventId: z.string(),
        type: DepositEvent.shape.type,
        occurredAt: at,
        /** `dead_lettered`: its last try failed, and it rests in the notify queue's DLQ. */
        state: z.enum(['delivered', 'retrying', 'dead_lettered']),
        attempts: count,
        firstTriedAt: at,
        lastTriedAt: at,
        deliveredAt: at.optional(),
        /** While `retrying`: when the queue brings it again. */
        nextTryAt: at.optional(),
        /** The most recent tries, oldest first. */
        tries: z.array(
          z.object({
            at,
            outcome: z.enum(['delivered', 'failed']),
            /** The webhook's HTTP status, when it answered. */
            status: z.number().int().optional(),
            error: z.string().optional(),
            tookMs: count,
          }),
        ),
        resends: count,
        lastResend: z.object({ by: z.string(), at }).optional(),
      }),
    ),
  })
  .meta({ id: 'Deliveries' });

export const Resent = z
  .object({
    operationID: z.string(),
    eventId: z.string(),
    resent: z.literal(true),
    /** The event's resends so far, this one included. */
    resends: count.min(1),
  })
  .meta({ id: 'Resent' });

const bucketCounts = z.object(
  Object.fromEntries(StatusBucket.options.map((bucket) => [bucket, count])) as Record<
    StatusBucket,
    typeof count
  >,
);
const spread = z.object({ medianSeconds: z.number().nonnegative(), p90Seconds: z.number().nonnegative() });

export const DepositStats = z
  .object({
    now: at,
    /** Each bucket's deposits (at the step, in the range); `capped`: at least that many. */
    counts: z.object(
      Object.fromEntries(
        StatusBucket.options.map((bucket) => [bucket, z.object({ count, capped: z.boolean() })]),
      ) as Record<StatusBucket, z.ZodObject<{ count: typeof count; capped: z.ZodBoolean }>>,
    ),
    /** The deposits created in each bin of the range, by the bucket they are in now. */
    overTime: z.object({
      from: at,
      to: at,
      binSeconds: z.number().positive(),
      bins: z.array(bucketCounts.extend({ from: at })),
    }),
    /** How long the newest done deposits (sources aside) took: in all, and at each step. */
    timeToDone: z.object({
      deposits: count,
      total: spread.optional(),
      steps: z.array(spread.extend({ step: DepositStep, deposits: count })),
    }),
  })
  .meta({ id: 'DepositStats' });
