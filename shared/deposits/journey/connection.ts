/**
 * The user's connection: the provider runs one operation at a time per connection, so a step takes
 * the connection's lease before it calls the provider, and hands it back with the answer. Reads
 * (metadata, beneficiaries) may be retried after an unknown outcome; a transfer never is, and so
 * takes the lease itself (`steps/transfer.ts`).
 */
import { randomUUID } from 'node:crypto';
import { ProviderRefusal, ProviderUnknownOutcome } from '#shared/provider/client';
import type { Deposit, WorkStep } from '../model/deposit.ts';
import type { ConnectionLeases } from '../ports/connection.ts';
import type { StepQueues } from '../ports/messaging.ts';
import type { CredentialOpener, DepositCredentials } from '../ports/provider.ts';
import type { Next } from './decision.ts';
import { retryAfterOf, saysLater } from './later.ts';
import { freeLease } from './lease-waits.ts';
import { type FailContext, ownLease } from './transitions.ts';
import { delaySeconds } from './wake-ups.ts';

export interface ConnectionContext<S extends WorkStep> extends FailContext {
  leases: ConnectionLeases;
  vault: CredentialOpener;
  queues: StepQueues<S>;
}

/**
 * The first pause between two tries of a held lease, and the longest: each try that finds it held is
 * a refused conditional write (a write unit in AWS), and the holder wakes the longest waiter once it
 * frees the lease (`lease-waits.ts`), so a patience of 2 s holds at most eight tries, not twelve.
 */
const LEASE_TRY_PAUSE_MS = { first: 50, longest: 400 };

/**
 * Takes the connection's lease, waiting a little if another step holds it: a provider call takes a
 * fraction of a second, while coming back through the queue costs at least a second. The deposit's
 * own input lease (the bank waits for its caller's answer) is taken back. `busy`: not taken within
 * the step's patience. (A step records what its calls found before it gives the lease back, so the
 * next holder, a copy of the same step included, reads it: ensure-beneficiary looks at its claim
 * again under the lease before a creation.)
 */
export async function takeLease(
  ctx: Pick<ConnectionContext<WorkStep>, 'leases' | 'clock' | 'settings'>,
  deposit: Deposit,
): Promise<string | 'busy'> {
  const holder = `${deposit.id}#${randomUUID()}`;
  const giveUpAt = ctx.clock.now() + ctx.settings.leasePatienceMs;
  // The lease the step before handed over (`leaseHeld`), else the deposit's own while the bank worked.
  const reclaimable = deposit.leaseHeld ?? ownLease(deposit);
  const { first, longest } = LEASE_TRY_PAUSE_MS;
  for (let pause = first; ; pause = Math.min(longest, pause * 2)) {
    const now = ctx.clock.now();
    const until = now + ctx.settings.leaseMs;
    if (await ctx.leases.acquire(deposit.ownerKey, holder, until, now, reclaimable)) return holder;
    if (now + pause > giveUpAt) return 'busy';
    await ctx.clock.sleep(pause + Math.floor(Math.random() * pause));
  }
}

/**
 * What follows when the step could not take the connection's lease within its patience:
 *   - another run of this very deposit holds it (a copy of its message, or the sweeper's re-drive,
 *     came while that run calls the bank): that run's outcome is the deposit's to write, so nothing
 *     is written here (a write would move the version under it, and its outcome, the caller's spent
 *     answers included, would be lost); the step comes back once that lease has run out, in case
 *     its run died, and is dropped as a duplicate if the run wrote first;
 *   - else another deposit of the connection holds it: a wait, recorded and bounded like the bank's
 *     busy answer (`waitForLease`).
 */
export async function leaseWait<S extends WorkStep>(
  ctx: Pick<ConnectionContext<S>, 'leases' | 'clock'>,
  deposit: Deposit,
  step: S,
): Promise<Next> {
  const held = await ctx.leases.holderOf(deposit.ownerKey);
  if (held?.holder.startsWith(`${deposit.id}#`) && held.holder !== ownLease(deposit)) {
    const leftMs = held.until - ctx.clock.now();
    const why = 'another run of this deposit holds the lease';
    return { kind: 'again', step, delaySeconds: Math.max(1, delaySeconds(leftMs)), why };
  }
  return { kind: 'later', step, changes: {}, wait: 'lease' };
}

/**
 * Passes a call's lease to the deposit itself (`ownLease`) for another whole lease time: the bank
 * keeps working for it after the call answered. Lost if the lease ran out and another took it.
 */
export async function keepLease(
  ctx: Pick<ConnectionContext<WorkStep>, 'leases' | 'clock' | 'settings'>,
  deposit: Deposit,
  lease: string,
) {
  const now = ctx.clock.now();
  await ctx.leases.acquire(deposit.ownerKey, ownLease(deposit), now + ctx.settings.leaseMs, now, lease);
}

/** The user's provider credentials, opened for one call. */
export function openCredentials(
  ctx: { vault: CredentialOpener },
  deposit: Deposit,
): Promise<DepositCredentials> {
  if (!deposit.sealedCredentials) throw new Error(`deposit ${deposit.id} has no credentials`);
  return ctx.vault.open<DepositCredentials>('credentials', deposit.id, deposit.sealedCredentials);
}

/**
 * Calls the provider under the connection's lease and hands the lease back with the answer: the
 * caller releases it, or keeps it while the bank waits for input. Refusals of the `tolerated` types
 * come back as values; otherwise the lease is released here and what follows is a decision
 * (`next`): a busy connection or an unknown outcome comes back later (the calls made here are safe
 * to repeat), other refusals fail the deposit.
 */
export async function callUnderLease<T, S extends WorkStep>(
  ctx: ConnectionContext<S>,
  deposit: Deposit,
  step: S,
  tolerated: readonly string[],
  call: (credentials: DepositCredentials, renewLease: () => Promise<void>) => Promise<T>,
): Promise<{ value: T | ProviderRefusal; lease: string } | { next: Next }> {
  const takenFrom = ctx.clock.now();
  const lease = await takeLease(ctx, deposit);
  if (lease === 'busy') return { next: await leaseWait(ctx, deposit, step) };
  let until = takenFrom + ctx.settings.leaseMs;
  try {
    // Before a further call, the lease runs its whole time again (unless none of it has gone); if
    // it ran out and another took the connection, the step comes back later like any busy one.
    const renewLease = async () => {
      const now = ctx.clock.now();
      if (until - now >= ctx.settings.leaseMs) return;
      until = now + ctx.settings.leaseMs;
      if (!(await ctx.leases.acquire(deposit.ownerKey, lease, until, now))) {
        throw new ProviderRefusal(
          'OPERATION_IN_PROGRESS',
          'The connection lease ran out between two calls',
          409,
        );
      }
    };
    return { value: await call(await openCredentials(ctx, deposit), renewLease), lease };
  } catch (error) {
    if (error instanceof ProviderRefusal && tolerated.includes(error.type)) return { value: error, lease };
    await freeLease(ctx, deposit.ownerKey, lease);
    if (error instanceof ProviderRefusal) return { next: refused(error, step) };
    if (error instanceof ProviderUnknownOutcome)
      return { next: { kind: 'retry', step, reason: `provider ${error.reason}` } };
    throw error;
  }
}

/** A refusal of a call safe to repeat: later when it says so, else the deposit fails with it. */
function refused(refusal: ProviderRefusal, step: WorkStep): Next {
  if (!saysLater(refusal)) return { kind: 'fail', type: refusal.type, msg: refusal.msg };
  return { kind: 'later', step, changes: {}, ...retryAfterOf(refusal) };
}
