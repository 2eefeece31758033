/**
 * The provider faults where a call fails: every call of the flow answering a 5xx or timing out, before
 * and after the bank acts, and the transfer's operation read back (`reconcile`) lost, only at banks that
 * take beneficiaries. A transfer's 5xx or timeout ends its deposit, its outcome unknown.
 */

import type { Dialect } from '#shared/provider/interface/dialects';
import { anyBank, type FaultKind, transferPathOn, withBeneficiaries } from './fault-kinds-common.ts';
import type { Random } from './random.ts';

const status5xx = (random: Random) => random.pick([500, 502, 503] as const);

/** The failing kinds, their rules at their paths in `paths`. */
export function failureKinds(paths: Dialect['paths']): FaultKind[] {
  const transferPath = transferPathOn(paths);
  return [
    ...(['before', 'after'] as const).flatMap((phase): FaultKind[] => [
      {
        kind: `metadata-5xx-${phase}`,
        applies: anyBank,
        rule: (random) => ({
          path: paths.metadata,
          outcome: 'error',
          status: status5xx(random),
          phase,
          times: random.int(1, 3),
        }),
        weight: 2,
      },
      {
        kind: `metadata-timeout-${phase}`,
        applies: anyBank,
        rule: (_random, _bank, timeoutMs) => ({
          path: paths.metadata,
          outcome: 'timeout',
          timeoutMs,
          phase,
          times: 1,
        }),
        weight: 1,
      },
      {
        kind: `create-beneficiary-5xx-${phase}`,
        applies: withBeneficiaries,
        rule: (random) => ({
          path: paths.beneficiariesCreate,
          outcome: 'error',
          status: status5xx(random),
          phase,
          times: 1,
        }),
        weight: 1,
      },
      {
        kind: `create-beneficiary-timeout-${phase}`,
        applies: withBeneficiaries,
        rule: (_random, _bank, timeoutMs) => ({
          path: paths.beneficiariesCreate,
          outcome: 'timeout',
          timeoutMs,
          phase,
          times: 1,
        }),
        weight: 1,
      },
      {
        kind: `transfer-5xx-${phase}`,
        ends: true,
        applies: anyBank,
        rule: (random, bank) => ({
          path: transferPath(bank),
          outcome: 'error',
          status: status5xx(random),
          phase,
          times: 1,
        }),
        weight: 1.5,
      },
      {
        kind: `transfer-timeout-${phase}`,
        ends: true,
        applies: anyBank,
        rule: (_random, bank, timeoutMs) => ({
          path: transferPath(bank),
          outcome: 'timeout',
          timeoutMs,
          phase,
          times: 1,
        }),
        weight: 1.5,
      },
    ]),
    {
      kind: 'list-5xx',
      applies: withBeneficiaries,
      rule: (random) => ({
        path: paths.beneficiariesGet,
        outcome: 'error',
        status: status5xx(random),
        times: random.int(1, 2),
      }),
      weight: 1,
    },
    {
      kind: 'list-timeout',
      applies: withBeneficiaries,
      rule: (_random, _bank, timeoutMs) => ({
        path: paths.beneficiariesGet,
        outcome: 'timeout',
        timeoutMs,
        times: 1,
      }),
      weight: 0.5,
    },
    {
      // Reads of the transfer operation lost: read again, done in the end.
      kind: 'operation-read-lost',
      readsBack: true,
      applies: withBeneficiaries,
      rule: (random, _bank, timeoutMs) =>
        random.chance(0.5)
          ? { path: paths.operationGet, outcome: 'error', status: status5xx(random), times: random.int(1, 3) }
          : { path: paths.operationGet, outcome: 'timeout', timeoutMs, times: 1 },
      weight: 1,
    },
  ];
}
