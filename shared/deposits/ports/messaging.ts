/**
 * What carries a deposit on: the step queues, the one-shot wake-ups and their cancels, the events
 * its caller hears, and the observer of its changes (metrics). No AWS here: `shared/adapters/`
 * implements these.
 */

import type { DepositStatus, DepositStep, WorkStep } from '../model/deposit.ts';
import type { DepositEvent } from '../model/events.ts';
import type { StepMessageTo } from '../model/messages.ts';

/** The queues of the steps `S`: a step message goes to the queue of the step it names. */
export interface StepQueues<S extends WorkStep = WorkStep> {
  send(message: StepMessageTo<S>, delaySeconds?: number): Promise<void>;
}

/** One-shot wake-ups that deliver a step message to the queue of the step it names, at a time. */
export interface WakeScheduler<S extends WorkStep = WorkStep> {
  /** Idempotent per `name`: arming twice is arming once. */
  scheduleAt(name: string, at: Date, message: StepMessageTo<S>): Promise<void>;
}

/** Wake-up schedules that will not be needed: those of a cancelled deposit. */
export interface WakeCancels {
  /** Deletes these schedules; a name with no schedule (it fired, or never was one) is fine. */
  cancel(names: readonly string[]): Promise<void>;
}

/** What the caller hears (webhooks). */
export interface DepositEvents {
  publish(event: DepositEvent): Promise<void>;
}

/** Told of every change of a deposit's status or step (metrics). */
export interface DepositObserver {
  transitioned(status: DepositStatus, step: DepositStep): void;
}
