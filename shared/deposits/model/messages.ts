/**
 * What moves a deposit and what its caller hears: the step message a step's queue carries, the
 * follower of a shared wake-up, and the event the outbox relays. No AWS here.
 */
import * as z from 'zod';
import { type Deposit, DepositStep, type WorkStep } from './deposit.ts';

/** A step message: the deposit, the step it asks for, and the version of the deposit it expects. */
export const StepMessage = z.object({
  depositId: z.string().min(1),
  step: DepositStep.exclude(['completed']),
  version: z.number().int().nonnegative(),
  /** `run` (default) works the step; `expire-input` fails the deposit if it still waits for input. */
  kind: z.enum(['run', 'expire-input']).default('run'),
  /** The deposit's trace (`Deposit.trace`), which a schedule's message keeps too. */
  trace: z.string().max(256).optional(),
});
export type StepMessage = z.infer<typeof StepMessage>;

/** A step message for one of the steps `S`: what a port that reaches only those queues accepts. */
export type StepMessageTo<S extends WorkStep> = Omit<StepMessage, 'step'> & { step: S };

/** The message that works `step` of this version of the deposit, in the deposit's trace. */
export function messageFor<S extends WorkStep>(
  deposit: Pick<Deposit, 'id' | 'version' | 'trace'>,
  step: S,
  kind: StepMessage['kind'] = 'run',
): StepMessageTo<S> {
  return {
    depositId: deposit.id,
    step,
    version: deposit.version,
    kind,
    ...(deposit.trace === undefined ? {} : { trace: deposit.trace }),
  };
}

/**
 * A deposit (or source) that waits for the same wake-up as a source cooling down on its connection
 * and wallet account, instead of arming its own: the source's step sends it this message when it wakes.
 */
export interface Follower {
  depositId: string;
  version: number;
  step: WorkStep;
}
