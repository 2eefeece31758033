/**
 * What ensure-beneficiary reaches (`ensure-beneficiary.ts`, and its claim's rules in
 * `beneficiary-claim.ts`): declared apart, so that neither imports the other for it.
 */
import type { ConnectionContext } from '../connection.ts';
import type { PauseContext } from '../input.ts';
import type { BeneficiaryClaims, Provider, SharedWakes, StepQueues, Wallets } from '../ports.ts';
import type { SendsOf, WakesOf } from '../reach.ts';

export interface EnsureBeneficiaryContext
  extends ConnectionContext<SendsOf<'ensure-beneficiary'>>,
    PauseContext<WakesOf<'ensure-beneficiary'>> {
  queues: StepQueues<SendsOf<'ensure-beneficiary'>>;
  provider: Pick<Provider, 'listBeneficiaries' | 'createBeneficiary'>;
  claims: Pick<BeneficiaryClaims, 'get' | 'claim' | 'update' | 'forget' | 'release'>;
  wallets: Wallets;
  /** Joins a payment source's wake-up while the source holds the claim until a time of its own. */
  sharedWakes: Pick<SharedWakes, 'follow'>;
}
