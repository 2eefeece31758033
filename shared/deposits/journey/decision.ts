/**
 * A step's decision as data: what follows (`Next`) and the effects on other items it carries
 * (`Effect`). Types and pure helpers only: `next.ts` makes a decision so (`apply`).
 */
import type { AccountsMetadata } from '#shared/provider/interface/schemas';
import type { AskingOperation, BeneficiaryClaim, Deposit, WorkStep } from '../model/deposit.ts';
import type { Question } from './input.ts';
import type { EventOf } from './transitions.ts';

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
      /**
       * The lease of the call this decision follows: handed to the step sent next when it is sent now
       * and calls the bank first (`handsOver`), recorded in the same write; else freed once the write
       * is done (landed or not).
       */
      lease?: string;
      before?: Effect[];
      after?: Effect[];
    }
  /** Nothing to write: the step comes back at `at` (woken early). */
  | { kind: 'wake'; step: WorkStep; at: number; why: string }
  /**
   * The connection is busy (the bank's answer, a 429, or another deposit's lease: `wait`): `step`
   * again later, counted and bounded (`later.ts`).
   */
  | {
      kind: 'later';
      step: WorkStep;
      changes: Partial<Deposit>;
      retryAfterMs?: number;
      wait?: 'connection' | 'lease';
      before?: Effect[];
    }
  /** A read's outcome was unknown: `step` again after a short delay, counted with the retries. */
  | { kind: 'retry'; step: WorkStep; reason: string }
  /** Nothing to write: the step's message again after `delaySeconds` (another run of it may be live). */
  | { kind: 'again'; step: WorkStep; delaySeconds: number; why: string }
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

/** The decision, with `effects` run before the rest of its own (a step's common part of its outcomes). */
export function after(effects: Effect[], next: Next): Next {
  if (next.kind === 'nothing' || next.kind === 'wake' || next.kind === 'retry' || next.kind === 'again') {
    if (effects.length === 0) return next;
    throw new Error(`effects before a decision of kind ${next.kind}`);
  }
  if (effects.length === 0) return next;
  return { ...next, before: [...effects, ...(next.before ?? [])] };
}
