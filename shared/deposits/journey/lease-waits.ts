/**
 * The deposits that wait for a connection's lease another deposit holds. A step that gave up its
 * patience records its deposit on the lease (`waitForLease`, `later.ts`), and whoever frees the
 * lease wakes the one that has waited longest, at its step, at once: without it, the waiter came
 * back on its own timer (a second, then growing to half a minute) and the connection sat idle
 * meanwhile. The timer stays, for a wake that never comes (the holder died with the lease, which
 * then runs out; or it freed the lease just before the waiter's record landed).
 */
import type { WorkStep } from '../model/deposit.ts';
import { messageFor } from '../model/messages.ts';
import type { ConnectionLeases } from '../ports/connection.ts';
import type { StepQueues } from '../ports/messaging.ts';
import { type LeaseStep, leaseSteps } from '../reach.ts';

const isLeaseStep = (step: WorkStep): step is LeaseStep => (leaseSteps as readonly WorkStep[]).includes(step);

/** What freeing a lease touches: the lease, and the queues of the steps that wait for one. */
export interface FreeingContext {
  leases: Pick<ConnectionLeases, 'release' | 'wake'>;
  leaseWaiters: StepQueues<LeaseStep>;
}

/**
 * Releases `holder`'s lease and wakes the deposit that has waited longest for it (never the
 * holder's own deposit), at the step and version it waits at now. A wait another freer took first is
 * passed over for the next.
 */
export async function freeLease(ctx: FreeingContext, ownerKey: string, holder: string): Promise<void> {
  const waiting = await ctx.leases.release(ownerKey, holder);
  const others = waiting
    .filter((waiter) => !holder.startsWith(`${waiter.depositId}#`))
    .sort((a, b) => a.since - b.since);
  for (const { depositId } of others) {
    const waiter = await ctx.leases.wake(ownerKey, depositId);
    // Only the steps that take the lease record a wait for it.
    if (!waiter || !isLeaseStep(waiter.step)) continue;
    const woken = {
      id: depositId,
      version: waiter.version,
      ...(waiter.trace ? { trace: waiter.trace } : {}),
    };
    await ctx.leaseWaiters.send(messageFor(woken, waiter.step));
    return;
  }
}
