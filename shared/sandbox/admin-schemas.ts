/**
 * The sandbox's administration (not part of the provider interface; a fixed contract of the sandbox):
 * applications, test users, their state, and fault rules, whose waits stay inside the sandbox
 * function's time. Bounded as every request is (`inputLimits`).
 */
import * as z from 'zod';
import { dapiV2Dialect, specDialect } from '#shared/provider/interface/dialects';
import { type ErrorType, errorTypes } from '#shared/provider/interface/errors';
import { faultWaitBudgetMs, inputLimits as limits } from '#shared/provider/interface/limits';
import { boundedText, TransferType } from '#shared/provider/interface/schemas';

const id = boundedText(limits.id);
const secret = boundedText(limits.secret);

/** A new application: its secret, refused from `expiresAt` on (30 days, as sandbox users). */
export const CreateApplicationResponse = z.object({ appSecret: z.string(), expiresAt: z.iso.datetime() });

export const CreateSandboxUserRequest = z.object({
  appSecret: secret,
  bankId: id,
  /** Opening balance of the user's account, in major units of the bank's currency. */
  balance: z.number().nonnegative().optional(),
  /** Lifetime of the access code, in seconds (default 600). */
  accessCodeTtlSeconds: z.number().int().min(1).max(86_400).optional(),
  /** How long the user's operations wait for user input, in seconds (default 300). */
  inputTtlSeconds: z.number().int().min(1).max(86_400).optional(),
  /** How long the bank takes with this user's operations: `sync: false` stays `initialized`, `sync: true` is held (default `SANDBOX_ASYNC_DELAY_MS`). */
  asyncDelaySeconds: z.number().int().min(0).max(86_400).optional(),
  /**
   * How long the bank takes to carry out this user's transfers (both forms), where that differs from
   * its other operations: a bank whose reads answer at once while its payments clear later
   * (default `asyncDelaySeconds`).
   */
  transferDelaySeconds: z.number().int().min(0).max(86_400).optional(),
});
export type CreateSandboxUserRequest = z.infer<typeof CreateSandboxUserRequest>;

export const CreateSandboxUserResponse = z.object({
  accessCode: z.string(),
  connectionID: z.string(),
  userSecret: z.string(),
  accounts: z.array(z.object({ id: z.string(), currency: z.string(), balance: z.number() })),
  cards: z.array(z.object({ id: z.string() })),
});
export type CreateSandboxUserResponse = z.infer<typeof CreateSandboxUserResponse>;

export const SandboxUserRequest = z.object({ appSecret: secret, connectionID: id });
export type SandboxUserRequest = z.infer<typeof SandboxUserRequest>;

/** What `/sandbox/users/get` answers, but its fault rules (`SandboxUserResponse` adds them, below). */
const SandboxUserFields = z.object({
  connectionID: z.string(),
  bankId: z.string(),
  accounts: CreateSandboxUserResponse.shape.accounts,
  cards: CreateSandboxUserResponse.shape.cards,
  transfers: z.array(
    z.object({
      reference: z.string(),
      operationID: z.string(),
      senderID: z.string(),
      amount: z.number(),
      currency: z.string(),
      type: TransferType,
      /** The inline form's `action`; absent for a transfer to a beneficiary. */
      action: z.string().optional(),
      receiver: z.object({
        beneficiaryID: z.string().optional(),
        name: z.string(),
        iban: z.string(),
        swiftCode: z.string(),
      }),
      createdAt: z.string(),
    }),
  ),
});

/** The HTTP status of an injected refusal: a 4xx. */
const refusalStatus = z.number().int().min(400).max(499);
/** The types an injected refusal may carry. */
const refusalTypes = [...(Object.keys(errorTypes) as ErrorType[]), 'TOO_MANY_REQUESTS'] as const;

/** The operation read (and its alias): a refusal there that names its operation names the one read. */
export const operationReadPaths = ['/v2/operation/get', '/v1/operation/get'] as const;
/**
 * The calls that create an operation, in both dialects: a refusal there that names its operation
 * names a new one, failed.
 */
export const operationCreatingPaths = [
  specDialect.paths.transferCreate,
  specDialect.paths.transferAutoflow,
  specDialect.paths.beneficiariesCreate,
  dapiV2Dialect.paths.transferCreate,
  dapiV2Dialect.paths.transferAutoflow,
  dapiV2Dialect.paths.beneficiariesCreate,
] as const;
/** Where a refusal may name its operation (`namesOperation`). */
export const operationNamingPaths: readonly string[] = [...operationReadPaths, ...operationCreatingPaths];

/** A fault's fields; `FaultRule` adds the check that its waits fit the function's time. */
export const FaultRuleFields = z.object({
  /** Only requests to this path; every path when absent. */
  path: z.string().startsWith('/').max(limits.faultPath).optional(),
  /** Added before the bank answers, while the operation holds the connection. */
  latencyMs: z.number().int().min(0).max(faultWaitBudgetMs).optional(),
  /**
   * `timeout`: hang for `timeoutMs`, then 504. `error`: answer `status` (a 5xx). `refusal`: answer
   * the failed envelope of `type` with `status` (4xx, 429 included), always before effect.
   * `pending`: on the operation read, answer `initialized` (the operation still running).
   */
  outcome: z.enum(['timeout', 'error', 'refusal', 'pending']).optional(),
  status: z.union([z.literal(500), z.literal(502), z.literal(503), refusalStatus]).optional(),
  /** A refusal's type: one of the interface's error types, or TOO_MANY_REQUESTS. */
  type: z.enum(refusalTypes).optional(),
  /** A refusal's `Retry-After`, in seconds. */
  retryAfterSeconds: z.number().int().min(0).max(3600).optional(),
  /**
   * A refusal's envelope names its operation (`operationID`, or `jobID`), as a failed operation's
   * does: on the operation read, the one read; on a call that creates one (transfer, beneficiary),
   * a new operation, recorded as failed with the refusal (nothing happened), which a read answers.
   */
  namesOperation: z.boolean().optional(),
  /**
   * `before`: nothing happens at the bank. `after`: the operation takes effect, the answer is lost (a
   * refusal's: replaced by the refusal, as a repeat of the request would hear it).
   */
  phase: z.enum(['before', 'after']).optional(),
  /** Only requests that answer a question (`userInputs`): the answered call of rule 1. */
  answered: z.boolean().optional(),
  timeoutMs: z.number().int().min(0).max(faultWaitBudgetMs).optional(),
  /** How many matching requests the rule applies to; unlimited when absent. */
  times: z.number().int().min(1).optional(),
});

/** Latency and a timeout's hang together stay inside what the deployed function can wait. */
export function withinFaultBudget<S extends z.ZodType<z.infer<typeof FaultRuleFields>>>(schema: S) {
  return schema
    .refine(
      (rule) =>
        (rule.latencyMs ?? 0) + (rule.outcome === 'timeout' ? (rule.timeoutMs ?? 0) : 0) <= faultWaitBudgetMs,
      {
        message: `latencyMs and timeoutMs together: at most ${faultWaitBudgetMs} ms (the sandbox function's time)`,
        path: ['latencyMs'],
      },
    )
    .refine(
      (rule) =>
        rule.outcome === 'refusal'
          ? (rule.status ?? 0) < 500 && rule.status !== undefined && rule.type !== undefined
          : (rule.status ?? 500) >= 500,
      {
        message: 'a refusal takes a type and a 4xx status; an error a 5xx one (500, 502 or 503)',
        path: ['status'],
      },
    )
    .refine(
      (rule) =>
        rule.outcome === 'refusal' || (rule.type === undefined && rule.retryAfterSeconds === undefined),
      {
        message: 'type and retryAfterSeconds belong to a refusal',
        path: ['type'],
      },
    )
    .refine((rule) => rule.outcome === 'refusal' || rule.namesOperation !== true, {
      message: 'namesOperation belongs to a refusal',
      path: ['namesOperation'],
    })
    .refine((rule) => rule.namesOperation !== true || rule.phase !== 'after', {
      message: 'a refusal after effect answers a repeat of the request: it names no operation of its own',
      path: ['namesOperation'],
    });
}

/** A rule that names its operation says where: a path with an operation to name. */
export const FaultRule = withinFaultBudget(FaultRuleFields)
  .refine((rule) => rule.namesOperation !== true || operationNamingPaths.includes(rule.path ?? ''), {
    message: `namesOperation takes a path that reads or creates an operation: ${operationNamingPaths.join(', ')}`,
    path: ['namesOperation'],
  })
  .refine(
    (rule) =>
      rule.outcome !== 'pending' || (operationReadPaths as readonly string[]).includes(rule.path ?? ''),
    {
      message: `pending takes the operation read's path: ${operationReadPaths.join(', ')}`,
      path: ['outcome'],
    },
  );
export type FaultRule = z.infer<typeof FaultRule>;

/**
 * Each call of the user's beneficiary creation that reached the bank's creation, in the order made:
 * `created` (`beneficiaryID` the one it created), `asked` (the bank asked its questions; the answered
 * call is another entry), or `refused` with its `type` (`BENEFICIARY_ALREADY_EXISTS`, ...). A call a
 * fault stopped before the bank saw it, or whose answers were refused, is not one.
 */
export const BeneficiaryCreationCall = z.object({
  jobID: z.string(),
  at: z.iso.datetime(),
  iban: z.string(),
  accountNumber: z.string(),
  outcome: z.enum(['created', 'asked', 'refused']),
  type: z.string().optional(),
  beneficiaryID: z.string().optional(),
});
export type BeneficiaryCreationCall = z.infer<typeof BeneficiaryCreationCall>;

/**
 * A user's state: its accounts, cards and transfers, its fault rules as they stand, a counted rule
 * with what it has left (`remaining`: its `times` less the requests it has failed), so a test can
 * tell which of the faults it set went off, and the calls of its beneficiary creation (so a test
 * counts the creations the provider saw).
 */
export const SandboxUserResponse = SandboxUserFields.extend({
  faults: z.array(FaultRuleFields.extend({ remaining: z.number().int().min(0).optional() })),
  beneficiaryCreations: z.array(BeneficiaryCreationCall),
});
export type SandboxUserResponse = z.infer<typeof SandboxUserResponse>;

export const SetFaultsRequest = z.object({
  appSecret: secret,
  connectionID: id,
  faults: z.array(FaultRule).max(limits.faultRules),
});
export type SetFaultsRequest = z.infer<typeof SetFaultsRequest>;

/** The user's fault rules as now set. */
export const SetFaultsResponse = z.object({ connectionID: z.string(), faults: z.array(FaultRuleFields) });
export type SetFaultsResponse = z.infer<typeof SetFaultsResponse>;
