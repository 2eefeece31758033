/**
 * Four eyes on money that moved: a resolution to `done` of a deposit whose amount is above its
 * currency's threshold needs a second, different operator's approval. No AWS here.
 *
 * The thresholds are per currency, in its minor units (ISO 4217 exponents differ: AED 1,000.00 is
 * `100000`, KWD 100.000 is `100000` too), so none is ever a rounded decimal. A currency they do not
 * name has none: every `done` in it needs approval (unset, that is every currency: the safe default).
 * `failed`, which moves no money to anyone, never needs approval.
 *
 * While a proposal is pending (for `APPROVAL_TTL_MS`):
 *   - another operator resolving `done` with the same reference approves it: it applies;
 *   - its proposer resolving it the same again is refused (403 RESOLUTION_NEEDS_ANOTHER_OPERATOR);
 *   - another operator resolving otherwise (another reference, or `failed`) is refused
 *     (409 RESOLUTION_DISAGREES): two people disagree about money, which they settle between them;
 *   - its proposer resolving otherwise changes it: another reference replaces it (pending again),
 *     `failed` applies at once, as it would have without a proposal.
 * Once lapsed, a proposal is as if it had never been: the next `done` proposes anew.
 */
import type { Deposit, PendingResolution } from '#shared/deposits/model/deposit';
import { MinorAmountsByCurrency } from '#shared/money';
import { OperatorError } from './errors.ts';

/** How long a proposal waits for its approval: a day, so an approval is of today's facts. */
export const APPROVAL_TTL_MS = 24 * 3_600_000;

/** Per currency code, the largest amount (minor units) one operator may resolve `done` alone. */
export const ApprovalThresholds = MinorAmountsByCurrency;
export type ApprovalThresholds = MinorAmountsByCurrency;

/** Whether a resolution to `done` of this deposit needs a second operator. */
export function needsApproval(
  deposit: Pick<Deposit, 'amountMinor' | 'currency'>,
  thresholds: ApprovalThresholds,
): boolean {
  return deposit.amountMinor > (thresholds[deposit.currency] ?? 0);
}

/** The deposit's proposal, while it has not lapsed. */
export function livePending(
  deposit: Pick<Deposit, 'pendingResolution'>,
  now: number,
): PendingResolution | undefined {
  const pending = deposit.pendingResolution;
  return pending && now < pending.at + APPROVAL_TTL_MS ? pending : undefined;
}

export interface ResolveRequest {
  outcome: 'done' | 'failed';
  reference?: string | undefined;
  who: string;
}

/**
 * What a resolve does, given the proposal it finds: apply (approving the proposal when it is
 * another's, the same), propose (record it pending), or be refused.
 */
export function decide(
  deposit: Deposit,
  request: ResolveRequest,
  now: number,
  thresholds: ApprovalThresholds,
): { kind: 'apply'; approves?: PendingResolution } | { kind: 'propose' } {
  const pending = livePending(deposit, now);
  if (pending) {
    const same = request.outcome === 'done' && request.reference === pending.reference;
    if (pending.by === request.who) {
      if (same) {
        throw new OperatorError(
          'RESOLUTION_NEEDS_ANOTHER_OPERATOR',
          `You proposed this resolution; another operator must approve it (until ${iso(pending.at + APPROVAL_TTL_MS)})`,
        );
      }
      // Its proposer changes it: as if there were none.
    } else if (same) {
      return { kind: 'apply', approves: pending };
    } else {
      throw new OperatorError(
        'RESOLUTION_DISAGREES',
        `Pending: done with reference ${pending.reference} by ${pending.by} at ${iso(pending.at)}; approve it with the same outcome and reference, or settle it with its proposer, who may change it (it lapses at ${iso(pending.at + APPROVAL_TTL_MS)})`,
      );
    }
  }
  return request.outcome === 'done' && needsApproval(deposit, thresholds)
    ? { kind: 'propose' }
    : { kind: 'apply' };
}

const iso = (at: number) => new Date(at).toISOString();
