/**
 * What each handler of the orchestrator may touch, one line per handler, keyed by the handler's one
 * name (`HandlerName` in `shared/topology.ts`: `<group>-<file>`, its module `functions/<group>/<file>.ts`).
 * Its context's type follows from its line (`HandlerContext`, `shared/wiring/handler-context.ts`), the wiring builds
 * only these adapters (`shared/wiring/handler-context.ts`), the CDK settings turn the line into the
 * function's IAM grants (`infra/cdk/grants.ts`) and its environment (`infra/cdk/environment.ts`), and
 * the unit tests' fakes are built from it too. A handler that needs more must say so here, and its
 * function gets exactly that. (The caller's events ride on the deposit writes; the outbox relay
 * sends them on.)
 */
import type { WorkStep } from './model/deposit.ts';

/**
 * The steps that take the connection's lease before they call the bank, and so may wait for it: a
 * handler that takes or frees leases sends to their queues, to wake the deposit waiting next
 * (`journey/lease-waits.ts`).
 */
export const leaseSteps = ['resolve-bank', 'ensure-beneficiary', 'transfer'] as const;
export type LeaseStep = (typeof leaseSteps)[number];

/** What a handler does with the beneficiary claims. */
export type ClaimUse = 'read' | 'write' | 'markUsed' | 'coolDown' | 'forget' | 'release';

export interface Reach {
  /** The step queues it sends step messages to. */
  sends: readonly WorkStep[];
  /** The step queues its one-shot schedules deliver to (none: it creates no schedule). */
  wakes: readonly WorkStep[];
  /** Seals credentials (the API, from the caller) or opens them (the steps, for the provider). */
  credentials?: 'seal' | 'open';
  /** Reads deposits, or reads and writes them. */
  deposits?: 'read' | 'write';
  /** Creates deposits with their idempotency record, and reads the record of a repeated request. */
  idempotency?: boolean;
  claims?: readonly ClaimUse[];
  /** What it does with the connection's remembered bank metadata. */
  banks?: readonly ('recall' | 'remember' | 'forget')[];
  /** What it does with a payment source's shared wake-up: arm it, follow it, or take its followers. */
  sharedWakes?: readonly ('arm' | 'follow' | 'take')[];
  /** Takes and frees connection leases, and wakes their waiters (its `sends` hold `leaseSteps`). */
  leases?: boolean;
  /** Queries the index of deposits due a look, and moves their check time on. */
  dueIndex?: boolean;
  /** Queries the index of a connection's deposits. */
  ownerIndex?: boolean;
  /** Queries the index of a backend's deposits (a list by the backend's own identity). */
  backendIndex?: boolean;
  /** Deletes wake-up schedules. */
  unschedules?: boolean;
  /** Queries the index of deposits by status bucket (the operator's list). */
  statusIndex?: boolean;
  /** Reads the depths of every queue of the service and of its DLQ. */
  queueDepths?: boolean;
  /**
   * The webhook deliveries' records: records each try (the notifier), reads a deposit's, or resends
   * one event (reads its record, queues its event to the notify queue again, counts the resend).
   */
  deliveries?: 'record' | 'read' | 'resend';
  /** The provider calls it makes. */
  provider?: readonly (
    | 'getMetadata'
    | 'listBeneficiaries'
    | 'createBeneficiary'
    | 'createTransfer'
    | 'createAutoflowTransfer'
    | 'getOperation'
  )[];
  /** Reads the wallet accounts the deposits go to (configuration, not a grant). */
  wallets?: true;
  /**
   * Turns a caller's access token and user secret into their keys (`OwnerDigests`): reads the
   * owner key, the secret the keyed digests are made with. The routes that take a token only.
   */
  ownerKeys?: boolean;
  /**
   * Relays the caller's events to the notify queue: from the table's stream (setting aside in its
   * DLQ, whole, what it could not relay), or again, what an operator redrove from that DLQ.
   */
  relays?: 'stream' | 'again';
  /** Reads the thresholds above which a resolution to done needs a second operator (configuration). */
  approvals?: true;
}

/** A handler that answers alone: it touches nothing of the orchestrator's. */
const alone = { sends: [], wakes: [] } as const satisfies Reach;

/**
 * What a create route touches (a deposit's, a payment source's): the record and its idempotency
 * record, its credentials sealed, the first step's message (the remembered bank and our beneficiary
 * record say which); a resumed one's connection and claim.
 */
const starting = {
  sends: ['resolve-bank', 'ensure-beneficiary', 'transfer'],
  wakes: [],
  credentials: 'seal',
  deposits: 'write',
  idempotency: true,
  // A deposit whose way is known (the bank remembered, the beneficiary on record) starts at the transfer.
  claims: ['read', 'release'],
  banks: ['recall'],
  // A source failed here (its answers refused past the re-asks) wakes its followers.
  sharedWakes: ['take'],
  leases: true,
  ownerKeys: true,
  // The wallet account a deposit goes to, and its maximum.
  wallets: true,
} as const satisfies Reach;

/** A cancel, the owner's or an operator's: a cancelled payment source's followers are woken at their steps. */
const cancelling = {
  sends: ['resolve-bank', 'ensure-beneficiary', 'transfer'],
  wakes: [],
  deposits: 'write',
  claims: ['release'],
  sharedWakes: ['take'],
  leases: true,
  unschedules: true,
} as const satisfies Reach;

export const reach = {
  'steps-resolve-bank': {
    sends: ['resolve-bank', 'ensure-beneficiary', 'transfer'],
    // The expiry of a question the bank asks on its metadata.
    wakes: ['resolve-bank'],
    credentials: 'open',
    deposits: 'write',
    // Failing a deposit (every handler that fails one frees its claim and a source's followers).
    claims: ['release'],
    sharedWakes: ['take'],
    banks: ['recall', 'remember'],
    leases: true,
    provider: ['getMetadata'],
    wallets: true,
  },
  'steps-ensure-beneficiary': {
    // (resolve-bank with the others: the steps that wait for a lease it frees.)
    sends: ['resolve-bank', 'ensure-beneficiary', 'wait-cooldown', 'transfer'],
    // A look-up after the bank's cool-down, and the expiry of a question to the caller.
    wakes: ['ensure-beneficiary'],
    credentials: 'open',
    deposits: 'write',
    // Forgets a created beneficiary's record when its look-up does not find it.
    claims: ['read', 'write', 'forget', 'release'],
    // Joins a payment source's wake-up while the source holds the claim until its look-up; a source
    // failing at its look-up wakes its own followers.
    sharedWakes: ['follow', 'take'],
    leases: true,
    provider: ['listBeneficiaries', 'createBeneficiary'],
    wallets: true,
  },
  'steps-wait-cooldown': {
    // The transfer at the end of the cool-down; or, when the bank hides new beneficiaries, the
    // look-up of the beneficiary's id in its list.
    // (resolve-bank: the steps that wait for a lease it frees.)
    sends: ['resolve-bank', 'transfer', 'ensure-beneficiary'],
    wakes: ['transfer', 'ensure-beneficiary'],
    // Writes only to end a deposit whose wake-up cannot be armed, try after try (a source given up
    // on frees its claim and hands its followers on).
    deposits: 'write',
    claims: ['release'],
    leases: true,
    // Follows a source's wake-up for the same instant; a source arms one for others to follow.
    sharedWakes: ['arm', 'follow', 'take'],
  },
  'steps-transfer': {
    // Again (busy connection, woken early, details asked), back to the cool-down the bank named, or
    // on to reading the outcome of the operation it submitted; a ready source wakes the deposits that
    // followed its wake-up (at the transfer, or at ensure-beneficiary's look-up).
    // (resolve-bank: the steps that wait for a lease it frees.)
    sends: ['resolve-bank', 'transfer', 'wait-cooldown', 'reconcile', 'ensure-beneficiary'],
    wakes: ['transfer'],
    credentials: 'open',
    deposits: 'write',
    // Marks the beneficiary used; forgets one the bank says is gone or wrong; a source given up on
    // frees its claim.
    claims: ['markUsed', 'coolDown', 'forget', 'release'],
    // Forgets the remembered bank when a refusal contradicts its metadata.
    banks: ['forget'],
    sharedWakes: ['take'],
    leases: true,
    provider: ['createTransfer', 'createAutoflowTransfer'],
    wallets: true,
  },
  'steps-reconcile': {
    // Reads the transfer operation again later; after the bank's refusal, the transfer again (busy
    // connection, details asked) or the cool-down it named.
    // (ensure-beneficiary with the transfer: the followers' queues, as every handler that fails one.)
    // (resolve-bank: the steps that wait for a lease it frees.)
    sends: ['resolve-bank', 'reconcile', 'transfer', 'wait-cooldown', 'ensure-beneficiary'],
    // The expiry of a question the bank asked on the transfer, which the transfer step answers.
    wakes: ['transfer'],
    credentials: 'open',
    deposits: 'write',
    claims: ['markUsed', 'coolDown', 'forget', 'release'],
    sharedWakes: ['take'],
    banks: ['forget'],
    leases: true,
    provider: ['getOperation'],
  },
  /** POST /v1/deposits/create: starts a deposit, or resumes the one waiting for these answers. */
  'deposits-create': starting,
  /** POST /v1/sources/create: starts a payment source, or resumes the one waiting for these answers. */
  'sources-create': starting,
  /** POST /v1/sources/get. */
  'sources-get': { sends: [], wakes: [], deposits: 'read', ownerKeys: true },
  /** POST /v1/sources/list: the connection's sources by the owner index, or the backend's by its own. */
  'sources-list': { sends: [], wakes: [], ownerIndex: true, backendIndex: true, ownerKeys: true },
  /** POST /v1/deposits/get. */
  'deposits-get': { sends: [], wakes: [], deposits: 'read', ownerKeys: true },
  /**
   * POST /v1/deposits/answer: the caller's answers, sealed on the deposit, which goes back to the
   * step that asked; one that came too late fails it (its connection and claim freed, a source's
   * followers woken, as every handler that fails one).
   */
  'deposits-answer': {
    sends: ['resolve-bank', 'ensure-beneficiary', 'transfer'],
    wakes: [],
    credentials: 'seal',
    deposits: 'write',
    claims: ['release'],
    sharedWakes: ['take'],
    leases: true,
    ownerKeys: true,
  },
  /** POST /v1/deposits/list: the connection's deposits by the owner index, or the backend's by its own. */
  'deposits-list': { sends: [], wakes: [], ownerIndex: true, backendIndex: true, ownerKeys: true },
  /**
   * POST /v1/deposits/cancel: ends a deposit before its transfer; frees its connection and its
   * beneficiary claim, and deletes its wake-up schedules.
   */
  'deposits-cancel': { ...cancelling, ownerKeys: true },
  /** POST /v1/sources/cancel: the same, for a source; its followers are woken at their steps. */
  'sources-cancel': { ...cancelling, ownerKeys: true },
  /** Re-drives every deposit due a look to its own step's queue. */
  'steps-sweeper': {
    sends: ['resolve-bank', 'ensure-beneficiary', 'wait-cooldown', 'transfer', 'reconcile'],
    wakes: [],
    dueIndex: true,
  },
  // The operator API (`shared/operator/`): any deposit, not only a connection's own.
  /** POST /v1/ops/deposits/list: a status bucket's deposits, by the status index. */
  'operator-list': { sends: [], wakes: [], statusIndex: true },
  /** POST /v1/ops/deposits/get. */
  'operator-get': { sends: [], wakes: [], deposits: 'read' },
  /** POST /v1/ops/deposits/resolve: settles an unknown transfer outcome (one write of a final deposit). */
  'operator-resolve': { sends: [], wakes: [], deposits: 'write', approvals: true },
  /** POST /v1/ops/deposits/cancel: the owner's cancel, by an operator. */
  'operator-cancel': cancelling,
  /** POST /v1/ops/deposits/redrive: the message the sweeper would send, to the step queue it names. */
  'operator-redrive': {
    sends: ['resolve-bank', 'ensure-beneficiary', 'wait-cooldown', 'transfer', 'reconcile'],
    wakes: [],
    deposits: 'read',
  },
  /** POST /v1/ops/queues. */
  'operator-queues': { sends: [], wakes: [], queueDepths: true },
  /** The webhook notifier: records each try of an event's delivery (the tries are the notify queue's own). */
  'notifier-deliver': { sends: [], wakes: [], deliveries: 'record' },
  /** POST /v1/ops/deposits/deliveries: the deposit, and its deliveries' records. */
  'operator-deliveries': { sends: [], wakes: [], deposits: 'read', deliveries: 'read' },
  /** POST /v1/ops/deposits/resend: one event of a deposit, to the notify queue again. */
  'operator-resend': { sends: [], wakes: [], deliveries: 'resend' },
  /** POST /v1/ops/deposits/stats: the buckets' counts and creation times, and the newest done deposits. */
  'operator-stats': { sends: [], wakes: [], statusIndex: true },
  /** Relays each deposit version's event from the table's stream to the notify queue. */
  'notifier-outbox': { ...alone, relays: 'stream' },
  /** Relays again what an operator redrove from the outbox relay's DLQ. */
  'notifier-relay-again': { ...alone, relays: 'again' },
  /** GET /health, and each API's `$default` route. */
  'deposits-health': alone,
  'deposits-not-found': alone,
  'operator-not-found': alone,
} as const satisfies Record<string, Reach>;

/** The orchestrator's handlers: each has its line here (the sandbox's have none). */
export type ReachName = keyof typeof reach;
/** The handler of step `S`: the consumer of its queue. */
export type StepHandler<S extends WorkStep> = `steps-${S}`;
/** The steps whose queues handler `H` may send to. */
export type SendsOf<H extends ReachName> = (typeof reach)[H]['sends'][number];
/** The steps whose queues the schedules of handler `H` deliver to. */
export type WakesOf<H extends ReachName> = (typeof reach)[H]['wakes'][number];

/** Every step queue some schedule delivers to: what the scheduler's role may send to. */
export const wakeTargets: readonly WorkStep[] = [
  ...new Set(Object.values(reach).flatMap((handler) => handler.wakes as readonly WorkStep[])),
];
