/**
 * The beneficiaries check of the audit: each connection the bank lists (where its list can be
 * trusted now) holds at most one wallet beneficiary, and exactly one once a deposit of its user is
 * done.
 */
import type { AuditScope } from './audit.ts';
import type { PlannedUser } from './plan.ts';

export function checkBeneficiaries({ input, items, finding }: AuditScope) {
  const beneficiaryFindings: string[] = [];
  let maxBeneficiaries = 0;
  for (const [userIndex, count] of input.beneficiaries) {
    maxBeneficiaries = Math.max(maxBeneficiaries, count);
    const user = input.plan.users[userIndex] as PlannedUser;
    const anyDone = user.deposits.some((deposit) => {
      const id = input.runs[deposit.index]?.id;
      return id !== undefined && items.get(id)?.status === 'done';
    });
    if (count > 1 || (anyDone && count !== 1)) {
      beneficiaryFindings.push(
        `user ${userIndex} ${user.bank.bankId}: ${count} wallet beneficiaries${anyDone ? ' (a deposit is done)' : ''}`,
      );
    }
  }
  finding('connections without exactly one wallet beneficiary', beneficiaryFindings);
  return { connectionsListed: input.beneficiaries.size, mostPerConnection: maxBeneficiaries };
}
