/**
 * A step's context, declared once: its line in `reach.ts` says what the step touches, and
 * `StepContext` turns that line into the ports it is given, each limited to the methods the line
 * names. The wiring builds the same line's adapters (`shared/wiring/step-context.ts`) and the CDK
 * settings its grants (`infra/cdk/grants.ts`): a step that needs more says so in its line, and its
 * context, its wiring and its function's grants all follow.
 */
import type { Clock } from '#shared/clock';
import type { FollowersContext } from './journey/wake-ups.ts';
import type { Wallets } from './model/wallets.ts';
import type { BankMemory, BeneficiaryClaims, ConnectionLeases, SharedWakes } from './ports/connection.ts';
import type { DepositObserver, StepQueues, WakeScheduler } from './ports/messaging.ts';
import type { CredentialOpener, Provider } from './ports/provider.ts';
import type { DepositRecords } from './ports/records.ts';
import type { DepositSettings } from './ports/settings.ts';
import type { ClaimUse, reach, SendsOf, WakesOf } from './reach.ts';

/** The deposit steps, each a queue's consumer with a context of its own. */
export type StepName = 'resolve-bank' | 'ensure-beneficiary' | 'wait-cooldown' | 'transfer' | 'reconcile';

type Line<H extends StepName> = (typeof reach)[H];
/** The uses a line lists under `key`, as a union (never when it lists none). */
type Uses<H extends StepName, K extends string> =
  Line<H> extends { readonly [k in K]: readonly (infer U)[] } ? U : never;

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

export type StepContext<H extends StepName> = {
  deposits: DepositRecords;
  clock: Clock;
  settings: DepositSettings;
  observer?: DepositObserver | undefined;
  queues: StepQueues<SendsOf<H>>;
} & ([WakesOf<H>] extends [never] ? unknown : { scheduler: WakeScheduler<WakesOf<H>> }) &
  (Line<H> extends { leases: true } ? { leases: ConnectionLeases } : unknown) &
  (Line<H> extends { credentials: 'open' } ? { vault: CredentialOpener } : unknown) &
  (Line<H> extends { wallets: true } ? { wallets: Wallets } : unknown) &
  Port<'claims', BeneficiaryClaims, ClaimMethods[Uses<H, 'claims'> & ClaimUse]> &
  Port<'banks', BankMemory, Uses<H, 'banks'> & keyof BankMemory> &
  Port<'sharedWakes', SharedWakes, Uses<H, 'sharedWakes'> & keyof SharedWakes> &
  Port<'provider', Provider, Uses<H, 'provider'> & keyof Provider> &
  // A step that may fail a payment source hands its followers on (`transitions.ts`, `fail`).
  ('take' extends Uses<H, 'sharedWakes'> ? { followers: FollowersContext } : unknown);
