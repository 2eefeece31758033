/**
 * The items of the sandbox table (single-table design): every entity's keys in one place, the
 * `toItem` / `fromItem` pair, time to live, and the condition an operation write expects.
 *
 * | Entity          | pk                      | sk                     | TTL     |
 * |-----------------|-------------------------|------------------------|---------|
 * | Application     | APP#<secret digest>     | APP                    | 30 days |
 * | Connection/user | CONN#<connectionID>     | CONNECTION             | 30 days |
 * | Account         | CONN#<connectionID>     | ACCOUNT#<accountID>    | 30 days |
 * | Card            | CONN#<connectionID>     | CARD#<cardID>          | 30 days |
 * | Beneficiary     | CONN#<connectionID>     | BENEFICIARY#<id>       | 30 days |
 * | IBAN uniqueness | CONN#<connectionID>     | IBAN#<iban>            | 30 days |
 * | Transfer        | CONN#<connectionID>     | TRANSFER#<reference>   | 30 days |
 * | Operation       | OPERATION#<id>          | OPERATION              | 7 days  |
 */
import { type OperationPrecondition, type OperationRecord, SANDBOX_LIFETIME_MS } from '#shared/sandbox/store';

const DAY_SECONDS = 86_400;
/** Users and applications: removed once their lifetime is over (the domain refuses them from then). */
export const userTtlSeconds = SANDBOX_LIFETIME_MS / 1000;
const operationTtlSeconds = 7 * DAY_SECONDS;

export type Key = { pk: string; sk: string };

/** The partition of one user: their connection, accounts, cards, beneficiaries and transfers. */
export const userPartition = (connectionId: string) => `CONN#${connectionId}`;

export const keys = {
  application: (digest: string): Key => ({ pk: `APP#${digest}`, sk: 'APP' }),
  connection: (id: string): Key => ({ pk: userPartition(id), sk: 'CONNECTION' }),
  account: (connectionId: string, id: string): Key => ({
    pk: userPartition(connectionId),
    sk: `ACCOUNT#${id}`,
  }),
  card: (connectionId: string, id: string): Key => ({ pk: userPartition(connectionId), sk: `CARD#${id}` }),
  beneficiary: (connectionId: string, id: string): Key => ({
    pk: userPartition(connectionId),
    sk: `BENEFICIARY#${id}`,
  }),
  iban: (connectionId: string, iban: string): Key => ({
    pk: userPartition(connectionId),
    sk: `IBAN#${iban}`,
  }),
  transfer: (connectionId: string, reference: string): Key => ({
    pk: userPartition(connectionId),
    sk: `TRANSFER#${reference}`,
  }),
  operation: (id: string): Key => ({ pk: `OPERATION#${id}`, sk: 'OPERATION' }),
};

export function toItem<T extends object>(key: Key, record: T, createdAtMs: number, ttlSeconds: number) {
  return { ...key, ...record, expiresAt: Math.floor(createdAtMs / 1000) + ttlSeconds };
}

export function fromItem<T>(item: Record<string, unknown> | undefined): T | undefined {
  if (!item) return undefined;
  const { pk: _pk, sk: _sk, expiresAt: _expiresAt, ...record } = item;
  return record as T;
}

/** A user's item (connection, account, card, beneficiary, transfer), kept as long as the user. */
export function userItem<T extends object>(key: Key, record: T, createdAtMs: number) {
  return toItem(key, record, createdAtMs, userTtlSeconds);
}

export function operationItem(operation: OperationRecord) {
  return toItem(keys.operation(operation.id), operation, operation.createdAt, operationTtlSeconds);
}

/** The condition of an operation write: no operation yet (`new`), or one still awaiting input. */
export function operationCondition(precondition: OperationPrecondition): {
  ConditionExpression: string;
  ExpressionAttributeNames?: Record<string, string>;
  ExpressionAttributeValues?: Record<string, unknown>;
} {
  return precondition === 'new'
    ? { ConditionExpression: 'attribute_not_exists(pk)' }
    : {
        ConditionExpression: '#state = :awaiting',
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: { ':awaiting': 'awaiting_input' },
      };
}
