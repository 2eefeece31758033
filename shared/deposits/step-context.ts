/**
 * A handler's context, declared once: its line in `reach.ts` says what it touches, and
 * `DepositsContext` turns that line into the deposit domain's ports it is given, each limited to the
 * methods the line names. The wiring builds the same line's adapters
 * (`shared/wiring/handler-context.ts`), the CDK settings its grants and environment (`infra/cdk/`),
 * and the unit tests their fakes (`test/support/deposit-world.ts`): a handler that needs more says so
 * in its line, and its context, its wiring, its fakes and its function's grants all follow. A step's
 * context is its handler's (`StepContext`).
 */
import type { Clock } from '#shared/clock';
import type { DeliveryRecords } from './background/deliveries.ts';
import type { UnrelayedEvents } from './background/outbox.ts';
import type { FollowersContext } from './journey/wake-ups.ts';
import type { Wallets } from './model/wallets.ts';
import type { BankMemory, BeneficiaryClaims, ConnectionLeases, SharedWakes } from './ports/connection.ts';
import type {
  DepositEvents,
  DepositObserver,
  StepQueues,
  WakeCancels,
  WakeScheduler,
} from './ports/messaging.ts';
import type { CredentialOpener, CredentialSealer, OwnerDigests, Provider } from './ports/provider.ts';
import type {
  BackendDeposits,
  DepositRecords,
  DueDeposits,
  IdempotencyRecords,
  OwnerDeposits,
} from './ports/records.ts';
import type { DepositSettings } from './ports/settings.ts';
import type { ClaimUse, LeaseStep, Reach, ReachName, reach, SendsOf, StepHandler, WakesOf } from './reach.ts';

/** The deposit steps, each a queue's consumer with a context of its own. */
export type StepName = 'resolve-bank' | 'ensure-beneficiary' | 'wait-cooldown' | 'transfer' | 'reconcile';

type Line<H extends ReachName> = (typeof reach)[H];
/** The uses a line lists under `key`, as a union (never when it lists none). */
type Uses<H extends ReachName, K extends string> =
  Line<H> extends { readonly [k in K]: readonly (infer U)[] } ? U : never;
/** What a line sets `key` to (never when it leaves it out). */
type Value<H extends ReachName, K extends string> =
  Line<H> extends { readonly [k in K]: infer V } ? V : never;
/** `Then` when the line sets `key` to `value`, else nothing. */
export type When<H extends ReachName, K extends string, V, Then> = [V] extends [Value<H, K>] ? Then : unknown;

/** Which methods of the claims port each use of `reach.ts` calls. */
interface ClaimMethods extends Record<ClaimUse, keyof BeneficiaryClaims> {
  read: 'get';
  write: 'claim' | 'update' | 'refresh';
  markUsed: 'markUsed';
  coolDown: 'coolDown';
  forget: 'forget';
  release: 'release';
}

/** A port the line names methods of, limited to them; nothing when it names none. */
type Port<Name extends string, P, Methods extends keyof P> = [Methods] extends [never]
  ? unknown
  : { [k in Name]: Pick<P, Methods> };

/** Which methods of the delivery records each use of `reach.ts` calls. */
interface DeliveryMethods extends Record<NonNullable<Reach['deliveries']>, keyof DeliveryRecords> {
  record: 'tried';
  read: 'of';
  resend: 'get' | 'resent';
}

/**
 * What handler `H` is given of the deposit domain: exactly the ports its line of `reach.ts` names, and
 * the clock. The operator's ports follow the same line in `shared/operator/context.ts`; a handler's
 * whole context is both (`HandlerContext`, `shared/wiring/handler-context.ts`).
 */
export type DepositsContext<H extends ReachName> = { clock: Clock } & When<
  H,
  'deposits',
  'read',
  { deposits: Pick<DepositRecords, 'get'> }
> &
  // What a change of state needs (`TransitionContext`): the records, the settings, the metric.
  When<
    H,
    'deposits',
    'write',
    { deposits: DepositRecords; settings: DepositSettings; observer?: DepositObserver | undefined }
  > &
  When<H, 'idempotency', true, { idempotency: IdempotencyRecords; trace?: () => string | undefined }> &
  ([SendsOf<H>] extends [never] ? unknown : { queues: StepQueues<SendsOf<H>> }) &
  ([WakesOf<H>] extends [never] ? unknown : { scheduler: WakeScheduler<WakesOf<H>> }) &
  When<H, 'unschedules', true, { schedules: WakeCancels }> &
  // Freeing a lease wakes the deposit waiting next for it, at its step (`journey/lease-waits.ts`).
  When<H, 'leases', true, { leases: ConnectionLeases; leaseWaiters: StepQueues<LeaseStep> }> &
  When<H, 'credentials', 'open', { vault: CredentialOpener }> &
  When<H, 'credentials', 'seal', { vault: CredentialSealer }> &
  When<H, 'wallets', true, { wallets: Wallets }> &
  When<H, 'ownerKeys', true, { ownerDigests: OwnerDigests }> &
  When<H, 'dueIndex', true, { due: DueDeposits; settings: DepositSettings }> &
  When<H, 'ownerIndex', true, { owners: OwnerDeposits }> &
  When<H, 'backendIndex', true, { backends: BackendDeposits }> &
  Port<'deliveries', DeliveryRecords, DeliveryMethods[Value<H, 'deliveries'> & keyof DeliveryMethods]> &
  When<H, 'deliveries', 'resend', { events: DepositEvents }> &
  When<H, 'relays', 'again', { events: DepositEvents }> &
  When<H, 'relays', 'stream', { events: DepositEvents; unrelayed: UnrelayedEvents }> &
  Port<'claims', BeneficiaryClaims, ClaimMethods[Uses<H, 'claims'> & ClaimUse]> &
  Port<'banks', BankMemory, Uses<H, 'banks'> & keyof BankMemory> &
  Port<'sharedWakes', SharedWakes, Uses<H, 'sharedWakes'> & keyof SharedWakes> &
  Port<'provider', Provider, Uses<H, 'provider'> & keyof Provider> &
  // A handler that may fail a payment source hands its followers on (`transitions.ts`, `fail`).
  ('take' extends Uses<H, 'sharedWakes'> ? { followers: FollowersContext } : unknown);

/** A step's context: its handler's (`steps-<step>`). */
export type StepContext<S extends StepName> = DepositsContext<StepHandler<S>>;
