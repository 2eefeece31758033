/**
 * ensure-beneficiary's calls to the bank under the connection's lease: the list first (a look-up of
 * one the bank has, or before a creation what fits the wallet already), then the creation and the
 * list that names its id. What they found comes back as a value (`Found`), and what follows from it
 * is decided in `beneficiary-found.ts`.
 */
import type { InputAnswer } from '#shared/provider/client';
import { callUnderLease } from '../journey/connection.ts';
import { answerFor, LATE_ANSWERS, type Question, SPENT_ANSWERS } from '../journey/input.ts';
import { type BeneficiaryClaim, bankOf, type Deposit, type WalletAccount } from '../model/deposit.ts';
import { walletOf } from '../model/wallets.ts';
import type { DepositCredentials } from '../ports/provider.ts';
import { stillCreating } from './beneficiary-claim.ts';
import { fitsMasked, matchWallet } from './beneficiary-match.ts';
import type { EnsureBeneficiaryContext } from './ensure-beneficiary-context.ts';

/** Who creates the beneficiary: this deposit's claim, and the record of one the bank has already. */
export interface Creator {
  claim: BeneficiaryClaim;
  /** The record of a beneficiary the bank has, whose id is not known yet. */
  created: BeneficiaryClaim | undefined;
  /**
   * The claim was this deposit's before this run: it may be a copy of the live run (a duplicate
   * message, a re-drive), which looks at the claim again under the lease before any call.
   */
  heldBefore: boolean;
}

/** Before a further call under the lease: the lease runs its whole time again (`callUnderLease`). */
type RenewLease = () => Promise<void>;

/** What the calls under the lease will be: which answers go to which call, and whether the list comes first. */
export interface Plan extends Creator {
  wallet: WalletAccount;
  listAnswer: InputAnswer | undefined;
  createAnswer: InputAnswer | undefined;
  /** The list shows the beneficiary at once, or (banks that hide new ones) once its cool-down is over. */
  listFirst: boolean;
  /** A look-up of one the bank has (never a creation), and when. */
  lookupAt: number | undefined;
  /** What fitted the wallet masked before a creation whose answer was lost: tells its new entry apart. */
  fittedBefore: string[] | undefined;
  /** The list showed entries that may be the wallet's, masked: nothing identifies it there. */
  observed: { ambiguous: boolean };
}

export async function planOf(
  ctx: EnsureBeneficiaryContext,
  deposit: Deposit,
  creator: Creator,
  lookupAt: number | undefined,
  fittedBefore: string[] | undefined,
): Promise<Plan> {
  // The caller's answers go to the call that asked: the list, or the creation (none once created).
  const listAnswer = await answerFor(ctx, deposit, 'list');
  const createAnswer = creator.created ? undefined : await answerFor(ctx, deposit, 'create');
  const hides = bankOf(deposit).hidesNewBeneficiaries;
  const listFirst = listAnswer !== undefined || (!createAnswer && (!hides || lookupAt !== undefined));
  const wallet = walletOf(ctx.wallets, deposit);
  return {
    ...creator,
    wallet,
    listAnswer,
    createAnswer,
    listFirst,
    lookupAt,
    fittedBefore,
    observed: { ambiguous: false },
  };
}

/** The calls under the connection's lease: the bank's refusals that matter come back as values. */
export function askTheBank(ctx: EnsureBeneficiaryContext, deposit: Deposit, plan: Plan) {
  const answered = plan.listAnswer || plan.createAnswer;
  const tolerated = answered ? [...existsSignals, SPENT_ANSWERS, LATE_ANSWERS] : existsSignals;
  // One lease time, renewed before each further call: a run that dies holding it blocks the
  // connection for one lease time only, within what the sweeper's re-drives wait for.
  return callUnderLease(ctx, deposit, 'ensure-beneficiary', tolerated, (credentials, renewLease) =>
    underLease(ctx, deposit, plan, credentials, renewLease),
  );
}

/** The list first (a look-up, or before a creation: what is there already), then the creation and its look-up. */
async function underLease(
  ctx: EnsureBeneficiaryContext,
  deposit: Deposit,
  plan: Plan,
  credentials: DepositCredentials,
  renewLease: RenewLease,
): Promise<Found> {
  const { wallet, claim } = plan;
  // Looked at again under the lease, before any call: another run of this deposit (a copy of its
  // message, a re-drive) may have made the creation and recorded it before giving the lease back.
  // A creation without the list first always looks; one after the list, when the claim was this
  // deposit's before this run (a run that has just taken it skips the read).
  const mayBeCopy = !plan.created && (plan.heldBefore || !plan.listFirst);
  if (mayBeCopy && !(await stillCreating(ctx, deposit))) return { kind: 'claim-lost' };
  if (plan.listFirst) {
    const listed = await ctx.provider.listBeneficiaries(credentials, plan.listAnswer);
    if (listed.status === 'user_input_required')
      return { kind: 'question', operation: 'list', question: listed };
    const match = matchWallet(listed.response.beneficiaries, wallet, plan.fittedBefore);
    if (match?.kind === 'listed') return match;
    plan.observed.ambiguous = match?.kind === 'ambiguous';
    // A look-up of a beneficiary the bank has: not there (or not told apart), never created twice.
    if (plan.lookupAt !== undefined) return { kind: plan.observed.ambiguous ? 'ambiguous' : 'unlisted' };
    // On the claim before the creation is sent: no death after it loses what tells ours apart.
    claim.fittingBeforeCreation = (listed.response.beneficiaries ?? [])
      .filter((entry) => fitsMasked(wallet, entry))
      .map((entry) => entry.id);
    // Our claim lost between the list and the creation: another deposit creates, never two.
    if (!(await ctx.claims.update(claim))) return { kind: 'claim-lost' };
    await renewLease();
  }
  return createAndLookUp(ctx, deposit, plan, credentials, renewLease);
}

async function createAndLookUp(
  ctx: EnsureBeneficiaryContext,
  deposit: Deposit,
  plan: Plan,
  credentials: DepositCredentials,
  renewLease: RenewLease,
): Promise<Found> {
  const made = await ctx.provider.createBeneficiary(credentials, plan.wallet.beneficiary, plan.createAnswer);
  if (made.status === 'user_input_required') return { kind: 'question', operation: 'create', question: made };
  if (bankOf(deposit).hidesNewBeneficiaries) return { kind: 'created' };
  // The creation's `reference` is not taken for the beneficiary's id (the spec does not say it
  // is): the id is the one the bank lists for the wallet's account identifiers.
  await renewLease();
  const listed = await ctx.provider.listBeneficiaries(credentials);
  if (listed.status === 'user_input_required')
    return { kind: 'question', operation: 'list', question: listed, afterCreation: true };
  const match = matchWallet(listed.response.beneficiaries, plan.wallet, plan.claim.fittingBeforeCreation);
  return match?.kind === 'listed' ? match : { kind: 'created' };
}

/**
 * The refusals that say the beneficiary exists already (the spec names none; these are the names
 * providers use): each leads to the same look-up in the list.
 */
const existsSignals = ['BENEFICIARY_ALREADY_EXISTS', 'BENEFICIARY_EXISTS', 'DUPLICATE_BENEFICIARY'] as const;

/**
 * What the calls under the lease found: a question (of the list or the creation), a match, a
 * creation, or on a look-up, nothing (unlisted) or only masked entries that may be it (ambiguous);
 * or, before any creation, that another deposit took the claim over (claim-lost).
 */
export type Found =
  | { kind: 'question'; operation: 'list' | 'create'; question: Question; afterCreation?: boolean }
  | { kind: 'listed'; id: string; approved: boolean }
  | { kind: 'created' }
  | { kind: 'unlisted' }
  | { kind: 'ambiguous' }
  | { kind: 'claim-lost' };
