/**
 * The kinds of provider fault a chaos run injects (the sandbox's fault rules): which provider call
 * each hits, at which banks it applies, its rule, and its weight in the random choice. Every call of
 * the flow fails before and after the bank acts, is refused (a 429, with and without naming its
 * operation; a 401; a transfer refused), or is slowed; `faults.ts` chooses among them per user. A
 * rule names the path of its call in the dialect the orchestrator speaks (`faultKindsFor`): the
 * sandbox matches a rule by the path it was called at.
 *
 * The kinds come in families: calls failing (`fault-kinds-failures.ts`), calls refused
 * (`fault-kinds-refusals.ts`), and the bank's own doings (`fault-kinds-bank.ts`); what a kind is,
 * `fault-kinds-common.ts`.
 */

import type { Dialect } from '#shared/provider/interface/dialects';
import { bankKinds, metadataDown } from './fault-kinds-bank.ts';
import type { FaultKind } from './fault-kinds-common.ts';
import { failureKinds } from './fault-kinds-failures.ts';
import { refusalKinds } from './fault-kinds-refusals.ts';
import type { ProviderFault } from './faults.ts';

/**
 * Every kind, its rules naming the paths of `dialect` (the orchestrator's). The kinds are the same in
 * every dialect; only the paths differ (the operation read, `/v2/operation/get`, is shared).
 */
export function faultKindsFor(dialect: Dialect): FaultKind[] {
  const { paths } = dialect;
  return [...failureKinds(paths), ...refusalKinds(paths), ...bankKinds(paths)];
}

/** The bank down for a user: every metadata read fails, past the retry limit (a source that must fail). */
export function bankDown(dialect: Dialect): ProviderFault {
  return { kind: 'metadata-down', rule: metadataDown(dialect.paths) };
}

/** Whether a user's fault hits the transfer's operation read back (a kind that `readsBack`). */
export function readsBack(fault: ProviderFault, dialect: Dialect): boolean {
  return faultKindsFor(dialect).some((kind) => kind.kind === fault.kind && kind.readsBack);
}
