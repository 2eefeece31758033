/**
 * The provider faults where a call is refused: a 429 on the operation read, the transfer, the list,
 * the beneficiary's creation or the metadata; a 401 or another refusal of the operation read; the
 * transfer refused outright, with and without naming its operation, which alone ends its deposit.
 */

import type { Dialect } from '#shared/provider/interface/dialects';
import { anyBank, type FaultKind, transferPathOn, withBeneficiaries } from './fault-kinds-common.ts';

/** The refusing kinds, their rules at their paths in `paths`. */
export function refusalKinds(paths: Dialect['paths']): FaultKind[] {
  const transferPath = transferPathOn(paths);
  return [
    // Refusals (the sandbox's `outcome: "refusal"`), before effect: a 429 is "later" wherever it comes,
    // and a refusal of the outcome read names no operation: neither is the bank refusing the deposit.
    {
      kind: 'operation-read-429',
      readsBack: true,
      applies: withBeneficiaries,
      rule: (random) => ({
        path: paths.operationGet,
        outcome: 'refusal',
        status: 429,
        type: 'TOO_MANY_REQUESTS',
        retryAfterSeconds: 1,
        times: random.int(1, 3),
      }),
      weight: 1,
    },
    {
      // ... and one that names the operation read: still the read's "later", never the transfer's end.
      kind: 'operation-read-429-named',
      readsBack: true,
      applies: withBeneficiaries,
      rule: (random) => ({
        path: paths.operationGet,
        outcome: 'refusal',
        status: 429,
        type: 'TOO_MANY_REQUESTS',
        retryAfterSeconds: 1,
        namesOperation: true,
        times: random.int(1, 2),
      }),
      weight: 0.5,
    },
    {
      kind: 'operation-read-401',
      readsBack: true,
      applies: withBeneficiaries,
      rule: () => ({
        path: paths.operationGet,
        outcome: 'refusal',
        status: 401,
        type: 'UNAUTHORIZED',
        times: 1,
      }),
      weight: 0.5,
    },
    {
      // A provider that echoes the operation's id in every failed envelope: a refusal of the read that
      // names the transfer's operation, with a type that does not refuse a transfer. Read again, never
      // "nothing moved" (the transfer is done at the bank).
      kind: 'operation-read-refused-named',
      readsBack: true,
      applies: withBeneficiaries,
      rule: (random) => ({
        path: paths.operationGet,
        outcome: 'refusal',
        ...random.pick([
          { status: 409, type: 'OPERATION_MISMATCH' },
          { status: 400, type: 'INVALID_ACCESS_CODE' },
          { status: 401, type: 'UNAUTHORIZED' },
          { status: 403, type: 'BAD_REQUEST' },
        ] as const),
        namesOperation: true,
        times: random.int(1, 2),
      }),
      weight: 0.5,
    },
    {
      kind: 'transfer-429',
      applies: anyBank,
      rule: (random, bank) => ({
        path: transferPath(bank),
        outcome: 'refusal',
        status: 429,
        type: 'TOO_MANY_REQUESTS',
        times: random.int(1, 2),
      }),
      weight: 1,
    },
    {
      kind: 'list-429',
      applies: withBeneficiaries,
      rule: (random) => ({
        path: paths.beneficiariesGet,
        outcome: 'refusal',
        status: 429,
        type: 'TOO_MANY_REQUESTS',
        retryAfterSeconds: 1,
        times: random.int(1, 2),
      }),
      weight: 0.5,
    },
    {
      kind: 'create-beneficiary-429',
      applies: withBeneficiaries,
      rule: () => ({
        path: paths.beneficiariesCreate,
        outcome: 'refusal',
        status: 429,
        type: 'TOO_MANY_REQUESTS',
        namesOperation: true,
        times: 1,
      }),
      weight: 0.5,
    },
    {
      kind: 'metadata-429',
      applies: anyBank,
      rule: (random) => ({
        path: paths.metadata,
        outcome: 'refusal',
        status: 429,
        type: 'TOO_MANY_REQUESTS',
        times: random.int(1, 2),
      }),
      weight: 1,
    },
    {
      // ... naming the refused operation (a new one, failed): the same end.
      kind: 'transfer-refused-named',
      ends: true,
      applies: anyBank,
      rule: (_random, bank) => ({
        path: transferPath(bank),
        outcome: 'refusal',
        status: 422,
        type: 'INSUFFICIENT_BALANCE',
        namesOperation: true,
        times: 1,
      }),
      weight: 0.3,
    },
    {
      // The bank refuses the transfer outright: the deposit fails with its type, nothing moved.
      kind: 'transfer-refused',
      ends: true,
      applies: anyBank,
      rule: (_random, bank) => ({
        path: transferPath(bank),
        outcome: 'refusal',
        status: 422,
        type: 'INSUFFICIENT_BALANCE',
        times: 1,
      }),
      weight: 0.5,
    },
  ];
}
