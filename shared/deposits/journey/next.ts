/**
 * A step's decision as data (`Next`), and the one place that makes it so (`apply`). A step reads
 * what it needs and calls the provider at most once; then it returns what follows: move on (a step
 * or the same one, its message now or after a delay), done, come back when the connection is free,
 * ask the caller, ask again, fail, or nothing (and why). `apply` does the deposit's conditional write
 * (the event in that same write, `advance`), then what the decision sends, arms or frees.
 *
 * The writes that must land before a provider call (the transfer's attempt, a claim) are not
 * decisions: they are the step's own named phases, each before its one call.
 *
 * Effects on other items go with a decision: before the write (`before`: what the bank's answer
 * settles whatever becomes of the deposit, such as its connection freed or a beneficiary forgotten)
 * or after it, only once it landed (`after`: a beneficiary marked used by the transfer that did).
 */

import type { Deposit, WorkStep } from '../model/deposit.ts';
import type { BankMemory, BeneficiaryClaims } from '../ports/connection.ts';
import type { StepQueues } from '../ports/messaging.ts';
import { keepLease } from './connection.ts';
import type { Effect, Next } from './decision.ts';
import { askAgain, type PauseContext, pauseForInput } from './input.ts';
import { retryLater, waitForConnection, waitForLease } from './later.ts';
import { freeLease } from './lease-waits.ts';
import { advance, type FailContext, fail, ownLease, sendStep } from './transitions.ts';
import { wakeAt, wakeFollowers } from './wake-ups.ts';

export { after, type Effect, type Next } from './decision.ts';

/**
 * What applying a decision may touch: a step's context, whose line in `reach.ts` names the ports its
 * decisions' effects use (a decision with an effect its step has no port for is a defect: it throws).
 */
export type ApplyContext = FailContext &
  PauseContext<WorkStep> & {
    queues: StepQueues<WorkStep>;
    claims: Partial<Pick<BeneficiaryClaims, 'markUsed' | 'coolDown' | 'forget' | 'update' | 'refresh'>>;
    banks?: Partial<Pick<BankMemory, 'forget' | 'remember'>>;
  };

/** Makes the decision so; the deposit as written, if a write landed. */
export async function apply(ctx: ApplyContext, deposit: Deposit, next: Next): Promise<Deposit | undefined> {
  switch (next.kind) {
    case 'nothing':
      return undefined;
    case 'wake':
      await wakeAt(ctx, deposit, next.step, next.at);
      return undefined;
    case 'fail': {
      await run(ctx, deposit, next.before);
      const failed = await fail(ctx, deposit, next.type, next.msg, next.changes);
      if (failed) await run(ctx, failed, next.after);
      return failed;
    }
    case 'later':
      await run(ctx, deposit, next.before);
      if (next.wait === 'lease') await waitForLease(ctx, deposit, next.step);
      else await waitForConnection(ctx, deposit, next.step, next.changes, next.retryAfterMs);
      return undefined;
    case 'retry':
      await retryLater(ctx, deposit, next.step, next.reason);
      return undefined;
    case 'again':
      await sendStep(ctx, deposit, next.step, next.delaySeconds);
      return undefined;
    case 'ask': {
      await run(ctx, deposit, next.before);
      const paused = await pauseForInput(ctx, { ...deposit, ...next.dropped }, next.step, next.question, {
        operation: next.operation,
        also: next.also,
        lease: next.lease,
        ...(next.since === undefined ? {} : { since: next.since }),
      });
      if (paused) await run(ctx, paused, next.after);
      return paused;
    }
    case 'ask-again':
      await run(ctx, deposit, next.before);
      await askAgain(ctx, deposit, next.step, next.refusal, next.changes, next.note);
      return undefined;
    case 'move':
      return move(ctx, deposit, next);
  }
}

/**
 * A decision made without a call to the bank by a step the one before handed its lease
 * (`leaseHeld`): a move passes it on (to the step it sends, if that calls the bank first, else it is
 * freed); any other decision frees it.
 */
export async function applyHolding(
  ctx: ApplyContext,
  deposit: Deposit,
  next: Next,
): Promise<Deposit | undefined> {
  const held = deposit.leaseHeld;
  if (held === undefined) return apply(ctx, deposit, next);
  if (next.kind === 'move' && next.lease === undefined) return apply(ctx, deposit, { ...next, lease: held });
  try {
    return await apply(ctx, deposit, next);
  } finally {
    await freeLease(ctx, deposit.ownerKey, held);
  }
}

/**
 * The move: the effects before, the write, the effects after and the message or wake-up; the call's
 * lease, if any, handed over with the write (`handsOver`) or freed once all that is done.
 */
async function move(ctx: ApplyContext, deposit: Deposit, next: Extract<Next, { kind: 'move' }>) {
  const handed = next.lease !== undefined && handsOver(next);
  let moved: Deposit | undefined;
  try {
    await run(ctx, deposit, next.before);
    const changes = handed ? { ...next.changes, leaseHeld: next.lease } : next.changes;
    moved = await advance(ctx, deposit, changes, next.note, next.event);
    if (!moved) return undefined;
    await run(ctx, deposit, next.after);
    if (next.send) await sendStep(ctx, moved, next.send.step, next.send.delaySeconds);
    if (next.wake) await wakeAt(ctx, moved, next.wake.step, next.wake.at);
    return moved;
  } finally {
    if (next.lease !== undefined && !(handed && moved)) await freeLease(ctx, deposit.ownerKey, next.lease);
  }
}

/** The steps whose first act is a call to the bank under the connection's lease. */
const callsFirst: readonly WorkStep[] = ['ensure-beneficiary', 'transfer'];

/**
 * Whether a move's call lease passes to the step it sends: sent now (not after a delay, not a
 * wake-up), to a step that calls the bank first. The deposit holds the connection for the queue's
 * hop between them: two conditional writes of the lease fewer, and no other deposit between.
 */
export function handsOver(next: Extract<Next, { kind: 'move' }>): boolean {
  const send = next.send;
  return send !== undefined && !send.delaySeconds && !next.wake && callsFirst.includes(send.step);
}

async function run(ctx: ApplyContext, deposit: Deposit, effects: Effect[] = []) {
  for (const effect of effects) {
    if ('lease' in effect) await lease(ctx, deposit, effect);
    else if ('followers' in effect) await wakeFollowers(ctx.followers, deposit);
    else if ('banks' in effect) await banks(ctx, deposit, effect);
    else await claims(ctx, deposit, effect);
  }
}

function missing(port: string): never {
  throw new Error(`a decision used ${port}, which this step's context has not`);
}

async function banks(ctx: ApplyContext, deposit: Deposit, effect: Extract<Effect, { banks: string }>) {
  const memory = ctx.banks ?? missing('banks');
  if (effect.banks === 'forget') return (memory.forget ?? missing('banks.forget')).call(memory, deposit);
  const remember = memory.remember ?? missing('banks.remember');
  return remember.call(memory, deposit, effect.metadata, effect.until);
}

async function claims(ctx: ApplyContext, deposit: Deposit, effect: Extract<Effect, { claims: string }>) {
  const { ownerKey, walletAccountId } = deposit;
  const port = ctx.claims;
  if (effect.claims === 'mark-used')
    return (port.markUsed ?? missing('claims.markUsed')).call(port, ownerKey, walletAccountId);
  if (effect.claims === 'cool-down') {
    const coolDown = port.coolDown ?? missing('claims.coolDown');
    return coolDown.call(port, ownerKey, walletAccountId, effect.beneficiaryId, effect.until);
  }
  if (effect.claims === 'update') {
    await (port.update ?? missing('claims.update')).call(port, effect.claim);
    return;
  }
  if (effect.claims === 'hold-while-asked') {
    const until = deposit.pendingInput?.expiresAt ?? 0;
    await (port.refresh ?? missing('claims.refresh')).call(
      port,
      ownerKey,
      walletAccountId,
      deposit.id,
      until,
    );
    return;
  }
  return (port.forget ?? missing('claims.forget')).call(
    port,
    ownerKey,
    walletAccountId,
    effect.beneficiaryId,
  );
}

async function lease(ctx: ApplyContext, deposit: Deposit, effect: Extract<Effect, { lease: string }>) {
  if (effect.lease === 'keep') return keepLease(ctx, deposit, effect.held);
  const held = effect.lease === 'release' ? effect.held : ownLease(deposit);
  return freeLease(ctx, deposit.ownerKey, held);
}
