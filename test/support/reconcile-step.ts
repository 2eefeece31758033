/** What the reconcile step's unit files share: a deposit whose transfer the bank accepted, not read yet. */
import type { Deposit } from '#shared/deposits/model/deposit';
import { banks, type World } from './deposit-world.ts';

/** A deposit whose transfer the bank accepted as operation `op-7`, not read yet (`transfer` overrides its fields). */
export function atReconcile(w: World, { transfer, ...overrides }: Partial<Deposit> = {}) {
  return w.deposit({
    step: 'reconcile',
    version: 6,
    bank: banks.beneficiary,
    beneficiaryId: 'ben-1',
    transfer: {
      attempt: { at: w.clock.now(), answering: false },
      operationId: 'op-7',
      polls: 0,
      pollAt: w.clock.now(),
      ...transfer,
    },
    ...overrides,
  });
}
