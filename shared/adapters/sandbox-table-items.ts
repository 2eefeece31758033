/**
 * The items of the sandbox table (single-table design): every entity's keys in one place, the
 * `toItem` / `fromItem` pair, time to live, and the condition an operation write expects.
 * The entities, their keys and access patterns: `entities` below (docs/design.md shows it).
 */
import { type OperationPrecondition, type OperationRecord, SANDBOX_LIFETIME_MS } from '#shared/sandbox/store';

const DAY_SECONDS = 86_400;
/** Users and applications: removed once their lifetime is over (the domain refuses them from then). */
export const userTtlSeconds = SANDBOX_LIFETIME_MS / 1000;
const operationTtlSeconds = 7 * DAY_SECONDS;

export type Key = { pk: string; sk: string };

/**
 * The partition of one user: their connection, accounts, cards, beneficiaries, transfers, and the
 * calls of their beneficiary creation.
 */
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
  creationCall: (connectionId: string, id: string): Key => ({
    pk: userPartition(connectionId),
    sk: `CREATION#${id}`,
  }),
  operation: (id: string): Key => ({ pk: `OPERATION#${id}`, sk: 'OPERATION' }),
};

const lifetime = `${userTtlSeconds / DAY_SECONDS} days`;

/** What each entity is for, as docs/design.md shows it: its keys are `keys`' own, for these arguments. */
export const entities = {
  application: {
    name: 'Application',
    args: ['<secret digest>'],
    access: 'Get by secret digest (creating users); refused after its lifetime, removed by TTL',
    ttl: lifetime,
  },
  connection: {
    name: 'User connection',
    args: ['<connectionID>'],
    access: 'Get by id (every request); conditional update for the operation lock, token exchange, faults',
    ttl: lifetime,
  },
  account: {
    name: 'Account',
    args: ['<connectionID>', '<id>'],
    access: 'Get by user and id; debit conditional on the balance',
    ttl: lifetime,
  },
  card: { name: 'Card', args: ['<connectionID>', '<id>'], access: 'Get by user and id', ttl: lifetime },
  beneficiary: {
    name: 'Beneficiary',
    args: ['<connectionID>', '<id>'],
    access: "Get by user and id; list = Query on the user's partition",
    ttl: lifetime,
  },
  iban: {
    name: 'IBAN uniqueness',
    args: ['<connectionID>', '<iban>'],
    access: 'Conditional put: one beneficiary per IBAN and user',
    ttl: lifetime,
  },
  transfer: {
    name: 'Transfer',
    args: ['<connectionID>', '<reference>'],
    access: 'Written with the debit; read by `/sandbox/users/get`',
    ttl: lifetime,
  },
  creationCall: {
    name: 'Beneficiary creation call',
    args: ['<connectionID>', '<id>'],
    access: 'Put with the creation (or alone: asked, refused); read by `/sandbox/users/get`',
    ttl: lifetime,
  },
  operation: {
    name: 'Operation',
    args: ['<id>'],
    access: 'Get by id (polling, answering input); conditional on its state, so an answer commits once',
    ttl: `${operationTtlSeconds / DAY_SECONDS} days`,
  },
} satisfies Record<keyof typeof keys, { name: string; args: string[]; access: string; ttl: string }>;

export function toItem<T extends object>(key: Key, record: T, createdAtMs: number, ttlSeconds: number) {
  return { ...key, ...record, expiresAt: Math.floor(createdAtMs / 1000) + ttlSeconds };
}

export function fromItem<T>(item: Record<string, unknown> | undefined): T | undefined {
  if (!item) return undefined;
  const { pk: _pk, sk: _sk, expiresAt: _expiresAt, ...record } = item;
  return record as T;
}

/**
 * A user's item (connection, account, card, beneficiary, transfer, creation call), kept as long as
 * the user.
 */
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
