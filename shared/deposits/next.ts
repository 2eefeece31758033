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

import type { AccountsMetadata } from '#shared/provider/interface/schemas';
import { keepLease } from './connection.ts';
import { askAgain, type PauseContext, pauseForInput, type Question } from './input.ts';
import { waitForConnection } from './later.ts';
import type { AskingOperation, BeneficiaryClaim, Deposit, WorkStep } from './model.ts';
import type { BankMemory, BeneficiaryClaims, StepQueues } from './ports.ts';
import { advance, type EventOf, type FailContext, fail, ownLease, sendStep } from './transitions.ts';
import { wakeAt, wakeFollowers } from './wake-ups.ts';

/** A change to another item than the deposit, which a decision carries. */
export type Effect =
  /** A call's lease on the connection passes to the deposit: the bank works on after answering. */
  | { lease: 'keep'; held: string }
  /** A call's lease on the connection is freed. */
  | { lease: 'release'; held: string }
  /** The lease the deposit kept on its connection while the bank worked for it. */
  | { lease: 'release-own' }
  /** The deposits that followed a payment source's wake-up, each at the step and version it waits at. */
  | { followers: 'wake' }
  /** The beneficiary the transfer went through: details go with the first transfer only. */
  | { claims: 'mark-used' }
  | { claims: 'cool-down'; beneficiaryId: string; until: number }
  /** The record goes (only if it names this beneficiary, when given): a later deposit registers it again. */
  | { claims: 'forget'; beneficiaryId?: string }
  /** This deposit's own creation claim written as given (`BeneficiaryClaims.update`). */
  | { claims: 'update'; claim: BeneficiaryClaim }
  /** The creation claim held while the caller is asked, until the question expires. */
  | { claims: 'hold-while-asked' }
  /** The connection's remembered bank, whose metadata a refusal contradicted. */
  | { banks: 'forget' }
  /** What the bank said of itself, remembered for the connection until `until`. */
  | { banks: 'remember'; metadata: AccountsMetadata; until: number };

export type Next =
  /** Writes the changes (the event with them), then sends `send`'s message when given. */
  | {
      kind: 'move';
      changes: Partial<Deposit>;
      note?: string;
      event?: EventOf;
      send?: { step: WorkStep; delaySeconds?: number };
      /** A wake-up of `step` at `at` instead of a message now (a wait longer than a queue's delay). */
      wake?: { step: WorkStep; at: number };
      before?: Effect[];
      after?: Effect[];
    }
  /** Nothing to write: the step comes back at `at` (woken early). */
  | { kind: 'wake'; step: WorkStep; at: number; why: string }
  /** The connection is busy (or the provider asks for fewer requests): `step` again later, counted. */
  | { kind: 'later'; step: WorkStep; changes: Partial<Deposit>; retryAfterMs?: number; before?: Effect[] }
  /** The bank asks the caller: the deposit waits for input at `step`. */
  | {
      kind: 'ask';
      step: WorkStep;
      question: Question;
      operation: AskingOperation;
      /** The call's lease, which passes to the deposit while it waits for its caller. */
      lease?: string;
      /** What the deposit no longer holds, whatever follows (the transfer's attempt: nothing moved). */
      dropped?: Partial<Deposit>;
      also: Partial<Deposit>;
      since?: number;
      before?: Effect[];
      /** Once the deposit waits for its caller (run with it as written). */
      after?: Effect[];
    }
  /** The bank refused the caller's answers: the call again without them, so that it asks again. */
  | {
      kind: 'ask-again';
      step: WorkStep;
      refusal: { type: string; msg: string };
      changes: Partial<Deposit>;
      /** The history's note, when the refusal's type does not say why. */
      note?: string;
      before?: Effect[];
    }
  /** The deposit ends failed with a type its caller can act on. */
  | {
      kind: 'fail';
      type: string;
      msg: string;
      changes?: Partial<Deposit>;
      before?: Effect[];
      /** Once the deposit is failed (not when another writer moved it first). */
      after?: Effect[];
    }
  /** Nothing to write or send: another run has it, or it moved on. */
  | { kind: 'nothing'; why: string };

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

/** The decision, with `effects` run before the rest of its own (a step's common part of its outcomes). */
export function after(effects: Effect[], next: Next): Next {
  if (next.kind === 'nothing' || next.kind === 'wake' || effects.length === 0) return next;
  return { ...next, before: [...effects, ...(next.before ?? [])] };
}

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
      await waitForConnection(ctx, deposit, next.step, next.changes, next.retryAfterMs);
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
    case 'move': {
      await run(ctx, deposit, next.before);
      const moved = await advance(ctx, deposit, next.changes, next.note, next.event);
      if (!moved) return undefined;
      await run(ctx, deposit, next.after);
      if (next.send) await sendStep(ctx, moved, next.send.step, next.send.delaySeconds);
      if (next.wake) await wakeAt(ctx, moved, next.wake.step, next.wake.at);
      return moved;
    }
  }
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
  return ctx.leases.release(deposit.ownerKey, held);
}
