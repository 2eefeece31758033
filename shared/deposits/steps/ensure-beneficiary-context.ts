/**
 * What ensure-beneficiary touches (`ensure-beneficiary.ts`, and its claim's rules in
 * `beneficiary-claim.ts`): its line in `reach.ts`, named apart so that neither module imports the
 * other for it.
 */
import type { StepContext } from '../step-context.ts';

export type EnsureBeneficiaryContext = StepContext<'ensure-beneficiary'>;
