/**
 * What follows from what ensure-beneficiary's calls found (`beneficiary-calls.ts`): the beneficiary
 * listed (recorded, then used), created (looked up later), a question for the caller, answers refused,
 * a beneficiary the bank says exists, or one it does not show; each a decision that `apply` makes so.
 */
import { ProviderRefusal } from '#shared/provider/client';
import { LATE_ANSWERS, MAX_REASKS, SPENT_ANSWERS } from '../journey/input.ts';
import { after, type Next } from '../journey/next.ts';
import { bankOf, type Deposit } from '../model/deposit.ts';
import { beneficiaryWorkWith, tallyOf } from '../model/deposit-work.ts';
import type { Found, Plan } from './beneficiary-calls.ts';
import { beneficiaryUsed, createdAgain, LOOK_UP_AGAIN_MS, lookedUpLater } from './beneficiary-claim.ts';

/** What follows from what the calls found (a lost claim is waited for by the step itself). */
export function settled(
  deposit: Deposit,
  plan: Pick<Plan, 'claim' | 'created' | 'listAnswer' | 'createAnswer' | 'listFirst' | 'observed'>,
  found: Found | ProviderRefusal,
  now: number,
): Next {
  if (found instanceof ProviderRefusal) return afterRefusal(deposit, plan, found, now);
  switch (found.kind) {
    case 'claim-lost':
      return { kind: 'nothing', why: 'another deposit creates the beneficiary' };
    case 'question': {
      // A question on the list after the creation: the answered list is a look-up, never a new creation.
      const also = found.afterCreation ? beneficiaryWorkWith(deposit, { lookupAt: now }) : {};
      // The creation claim must not look abandoned while the bank waits for the caller.
      const held = plan.created ? [] : [{ claims: 'hold-while-asked' as const }];
      const { operation, question } = found;
      return { kind: 'ask', step: 'ensure-beneficiary', question, operation, also, after: held };
    }
    case 'unlisted':
    case 'ambiguous':
      return notFound(deposit, plan, found.kind);
    case 'created':
      return lookedUpLater(deposit, plan.claim, 'beneficiary created', LOOK_UP_AGAIN_MS, now);
    case 'listed': {
      const bank = bankOf(deposit);
      const cooldownUntil = found.approved ? now : now + bank.coolDownMs;
      const { lookupAt: _found, fittingBeforeCreation: _told, unconfirmed: _decided, ...record } = plan.claim;
      const claim = { ...record, state: 'created' as const, beneficiaryId: found.id, cooldownUntil };
      return after([{ claims: 'update', claim }], beneficiaryUsed(found.id, cooldownUntil, true, now));
    }
  }
}

/** A look-up that did not find it: created again when the answered creation never ran, else failed. */
function notFound(deposit: Deposit, plan: Pick<Plan, 'created'>, kind: 'unlisted' | 'ambiguous'): Next {
  if (kind === 'unlisted' && plan.created?.unconfirmed && tallyOf(deposit, 'reasks') < MAX_REASKS)
    return createdAgain(deposit);
  const [type, msg] =
    kind === 'ambiguous'
      ? ['BENEFICIARY_AMBIGUOUS', AMBIGUOUS_MSG]
      : ['BENEFICIARY_UNRESOLVED', 'The bank created the beneficiary but does not list it'];
  // Its record goes with it: a later deposit may create it again (the bank says if it exists).
  return { kind: 'fail', type, msg, after: plan.created ? [{ claims: 'forget' }] : [] };
}

/** The bank refused a call under the lease: its answers refused, or the beneficiary exists already. */
function afterRefusal(
  deposit: Deposit,
  plan: Pick<Plan, 'claim' | 'listAnswer' | 'createAnswer' | 'listFirst' | 'observed'>,
  refusal: ProviderRefusal,
  now: number,
): Next {
  // The answered list ran already (its outcome lost), or the bank stopped waiting for the answers
  // to the list or the creation (nothing ran): the call again, the bank asks again.
  const answered = plan.listAnswer !== undefined || plan.createAnswer !== undefined;
  if (answered && (refusal.type === LATE_ANSWERS || (refusal.type === SPENT_ANSWERS && plan.listAnswer)))
    return { kind: 'ask-again', step: 'ensure-beneficiary', refusal, changes: {} };
  // No operation waits for the answers to the creation: it ran (its outcome lost), or the bank
  // stopped waiting before it could. The list decides (`unconfirmed`), after the wait a plain
  // creation's look-up has: read at once, a list that lags would not show it yet, and a creation
  // that ran would be made again.
  if (refusal.type === SPENT_ANSWERS) {
    const unconfirmed = { ...plan.claim, unconfirmed: true };
    return lookedUpLater(deposit, unconfirmed, 'the answered creation ran already', LOOK_UP_AGAIN_MS, now);
  }
  // It exists: an earlier attempt whose answer was lost created it. If this run listed (at a time
  // the bank shows it) and did not find it, it cannot be resolved. Else look it up in the list;
  // the caller's answers belonged to the lost creation and are spent.
  if (plan.listFirst && plan.observed.ambiguous)
    return { kind: 'fail', type: 'BENEFICIARY_AMBIGUOUS', msg: AMBIGUOUS_MSG };
  if (plan.listFirst)
    return {
      kind: 'fail',
      type: 'BENEFICIARY_UNRESOLVED',
      msg: 'The bank has the beneficiary but does not list it',
    };
  return lookedUpLater(deposit, plan.claim, 'beneficiary exists', 0, now);
}

const AMBIGUOUS_MSG =
  "The bank lists the wallet's account only masked, and nothing tells which entry is the wallet's (its full IBAN, or the id of our own creation)";
