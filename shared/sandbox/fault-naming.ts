/**
 * A refusal that names its operation (`namesOperation`, `X-Sandbox-Names-Operation`), as a failed
 * operation's envelope does: where it may go, and the operation it names.
 */
import type { Clock } from '#shared/clock';
import { dapiV2Dialect, specDialect } from '#shared/provider/interface/dialects';
import { badRequest, type EnvelopeError, type NamedOperation } from '#shared/provider/interface/errors';
import {
  type operationCreatingPaths,
  operationNamingPaths,
  operationReadPaths,
} from '#shared/sandbox/admin-schemas';
import { newId } from './ids.ts';
import { failedEnvelope, fingerprint } from './operation-records.ts';
import type { ConnectionRecord, OperationKind, SandboxStore } from './store.ts';

/** A request as the fault rules see it: its path and its headers (names in lower case). */
export interface FaultedRequest {
  path: string;
  headers: Record<string, string | undefined>;
  /**
   * Its validated body, for a refusal that names its operation: the id the operation read reads,
   * the fingerprint of the operation a call creates.
   */
  body?: object | undefined;
}

/** The operation each call that creates one creates, and the name of its id, in each dialect. */
const createdOperations: Partial<
  Record<(typeof operationCreatingPaths)[number], { kind: OperationKind; idField: NamedOperation['idField'] }>
> = Object.fromEntries(
  [specDialect, dapiV2Dialect].flatMap((dialect) =>
    (
      [
        ['transferCreate', 'transfer.create'],
        ['transferAutoflow', 'transfer.autoflow'],
        ['beneficiariesCreate', 'beneficiaries.create'],
      ] as const
    ).map(([call, kind]) => [dialect.paths[call], { kind, idField: dialect.idFields[call] }]),
  ),
);

export function notNamingHere(path: string) {
  return badRequest([
    `X-Sandbox-Names-Operation: only on ${operationNamingPaths.join(', ')}, not on ${path}`,
  ]);
}

/**
 * The operation a refusal names: on the operation read, the one its body reads; on a call that
 * creates one, a new operation, recorded as failed with the refusal, as the bank records one it
 * refused (nothing else happened), so that reading it answers the same envelope.
 */
export async function namedOperation(
  store: SandboxStore,
  clock: Clock,
  connection: ConnectionRecord,
  request: FaultedRequest,
  refusal: EnvelopeError,
): Promise<NamedOperation | undefined> {
  const body = (request.body ?? {}) as Record<string, unknown>;
  if ((operationReadPaths as readonly string[]).includes(request.path)) {
    const idField = typeof body.operationID === 'string' ? 'operationID' : 'jobID';
    const id = body[idField];
    return typeof id === 'string' ? { idField, id } : undefined;
  }
  const created = createdOperations[request.path as keyof typeof createdOperations];
  if (!created) return undefined;
  const { kind, idField } = created;
  const id = newId(idField === 'jobID' ? 'job' : 'op');
  const now = clock.now();
  await store.saveOperation(
    {
      id,
      connectionId: connection.id,
      kind,
      fingerprint: fingerprint(body),
      state: 'final',
      response: failedEnvelope(idField, id, refusal),
      httpStatus: refusal.status,
      completesAt: now,
      createdAt: now,
    },
    'new',
  );
  return { idField, id };
}
