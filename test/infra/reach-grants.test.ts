/**
 * Each deposits function's item actions on the deposits table reach no further than its line of
 * `shared/deposits/reach.ts`, over the synthesized templates: each action limited to the
 * partition-key prefix of the entities it touches (`dynamodb:LeadingKeys`), the indexes to a Query
 * alone. Written out here rather than derived, as stacks-reach.test.ts's grants: a function that
 * starts reaching further fails this test until someone decides it should.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { settingsOf } from '#infra/cdk/settings';
import { keys } from '#shared/adapters/deposits-table-items';
import { type HandlerName, queues, sweeper } from '#shared/topology';
import { deposits, operator, sources } from './reach-world.ts';
import {
  actionsOf,
  configurations,
  functionsByHandler,
  type Statement,
  type Synthesized,
  statementsOfFunction,
  synthesize,
  text,
} from './synth.ts';

let dev: Synthesized;
beforeAll(() => {
  dev = synthesize(configurations.devWithSandbox);
});

/** A table statement's actions (without `dynamodb:`) by the one prefix its condition allows. */
function partitionsOf(synthesized: Synthesized, handler: HandlerName): Record<string, string[]> {
  const itemActions = ['GetItem', 'BatchGetItem', 'Query', 'PutItem', 'UpdateItem', 'DeleteItem'];
  const onTable = statementsOfFunction(synthesized.templates.stateless, handler).filter(
    (statement) =>
      actionsOf([statement]).some((action) => itemActions.includes(action.replace('dynamodb:', ''))) &&
      !text(statement.Resource).includes('/index/'),
  );
  const byPrefix: Record<string, string[]> = {};
  for (const statement of onTable) {
    const condition = (statement as Statement).Condition as
      | { 'ForAllValues:StringLike'?: { 'dynamodb:LeadingKeys'?: string[] } }
      | undefined;
    const leading = condition?.['ForAllValues:StringLike']?.['dynamodb:LeadingKeys'];
    expect(leading, `${handler}: a table statement without LeadingKeys`).toHaveLength(1);
    expect(Object.keys(condition ?? {}), handler).toEqual(['ForAllValues:StringLike']);
    const prefix = String(leading?.[0]).replace(/\*$/, '');
    expect(byPrefix[prefix], `${handler}: two statements for ${prefix}`).toBeUndefined();
    byPrefix[prefix] = actionsOf([statement])
      .map((action) => action.replace('dynamodb:', ''))
      .sort();
  }
  return byPrefix;
}

/** The partition-key prefix of every entity of the deposits table (`keys`). */
function entityPrefixes(): string[] {
  const prefixes = Object.values(keys).map((key) => {
    const { pk } = (key as (...args: string[]) => { pk: string })('a', 'b');
    return pk.slice(0, pk.indexOf('#') + 1);
  });
  return [...new Set(prefixes)];
}

/** The create's uniqueness records: its idempotency key, and its client reference. */
const uniqueness = { 'IDEMPOTENCY#': ['GetItem', 'PutItem'], 'CLIENTREF#': ['GetItem', 'PutItem'] };
const cancelling = {
  'DEPOSIT#': ['DeleteItem', 'GetItem', 'PutItem'],
  'BENEFICIARY#': ['UpdateItem'],
  'WAKE#': ['DeleteItem', 'GetItem'],
  'LEASE#': ['GetItem', 'UpdateItem'],
};
const creating = {
  'DEPOSIT#': ['DeleteItem', 'GetItem', 'PutItem'],
  ...uniqueness,
  'BENEFICIARY#': ['GetItem', 'UpdateItem'],
  'BANK#': ['GetItem'],
  'WAKE#': ['DeleteItem', 'GetItem'],
  'LEASE#': ['GetItem', 'UpdateItem'],
};

/** Each function's item actions on the deposits table, by the partition-key prefix they are limited to. */
const expectedPartitions: Record<string, Record<string, string[]>> = {
  [deposits('create')]: creating,
  [sources('create')]: creating,
  [deposits('get')]: { 'DEPOSIT#': ['GetItem'] },
  [sources('get')]: { 'DEPOSIT#': ['GetItem'] },
  [deposits('list')]: { 'DEPOSIT#': ['BatchGetItem'] },
  [sources('list')]: { 'DEPOSIT#': ['BatchGetItem'] },
  [deposits('cancel')]: cancelling,
  [sources('cancel')]: cancelling,
  [operator('deposits/cancel')]: cancelling,
  [operator('deposits/get')]: { 'DEPOSIT#': ['GetItem'] },
  [operator('deposits/list')]: { 'DEPOSIT#': ['BatchGetItem'] },
  [operator('deposits/redrive')]: { 'DEPOSIT#': ['GetItem'] },
  [operator('deposits/resolve')]: { 'DEPOSIT#': ['DeleteItem', 'GetItem', 'PutItem'] },
  // The steps that open credentials read them with the deposit: a Query of its partition, no other.
  [queues.resolveBank.handler]: {
    'DEPOSIT#': ['DeleteItem', 'GetItem', 'PutItem', 'Query'],
    'BENEFICIARY#': ['UpdateItem'],
    'BANK#': ['GetItem', 'PutItem'],
    'WAKE#': ['DeleteItem', 'GetItem'],
    'LEASE#': ['GetItem', 'UpdateItem'],
  },
  [queues.ensureBeneficiary.handler]: {
    'DEPOSIT#': ['DeleteItem', 'GetItem', 'PutItem', 'Query'],
    'BENEFICIARY#': ['DeleteItem', 'GetItem', 'PutItem', 'UpdateItem'],
    'WAKE#': ['DeleteItem', 'GetItem', 'UpdateItem'],
    'LEASE#': ['GetItem', 'UpdateItem'],
  },
  [queues.waitCooldown.handler]: {
    'DEPOSIT#': ['DeleteItem', 'GetItem', 'PutItem'],
    'BENEFICIARY#': ['UpdateItem'],
    'WAKE#': ['DeleteItem', 'GetItem', 'PutItem', 'UpdateItem'],
    'LEASE#': ['GetItem', 'UpdateItem'],
  },
  [queues.transfer.handler]: {
    'DEPOSIT#': ['DeleteItem', 'GetItem', 'PutItem', 'Query'],
    'BENEFICIARY#': ['DeleteItem', 'UpdateItem'],
    'BANK#': ['DeleteItem'],
    'WAKE#': ['DeleteItem', 'GetItem'],
    'LEASE#': ['GetItem', 'UpdateItem'],
  },
  [queues.reconcile.handler]: {
    'DEPOSIT#': ['DeleteItem', 'GetItem', 'PutItem', 'Query'],
    'BENEFICIARY#': ['DeleteItem', 'UpdateItem'],
    'BANK#': ['DeleteItem'],
    'WAKE#': ['DeleteItem', 'GetItem'],
    'LEASE#': ['GetItem', 'UpdateItem'],
  },
  // Moves the check time of what it re-drives.
  [sweeper.handler]: { 'DEPOSIT#': ['UpdateItem'] },
  // Records each try of a webhook delivery, in the records' own partitions: no deposit.
  [queues.notify.handler]: { 'DELIVERY#': ['UpdateItem'] },
  [operator('deposits/deliveries')]: { 'DEPOSIT#': ['GetItem'], 'DELIVERY#': ['Query'] },
  [operator('deposits/resend')]: { 'DELIVERY#': ['Query', 'UpdateItem'] },
  [operator('deposits/stats')]: { 'DEPOSIT#': ['BatchGetItem'] },
};

describe('table grants', () => {
  it('are limited, entity by entity, to the partition-key prefix of the items each function touches', () => {
    for (const [handler, expected] of Object.entries(expectedPartitions)) {
      expect(partitionsOf(dev, handler as HandlerName), handler).toEqual(expected);
    }
  });

  it('give every function, a new one too, a statement per prefix of an entity, the settings’ actions in all', () => {
    const prefixes = entityPrefixes();
    for (const [handler] of functionsByHandler(dev.templates.stateless)) {
      const partitions = partitionsOf(dev, handler);
      for (const prefix of Object.keys(partitions)) expect(prefixes, handler).toContain(prefix);
      const all = [...new Set(Object.values(partitions).flat())].sort();
      expect(
        all.map((action) => `dynamodb:${action}`),
        handler,
      ).toEqual([...(settingsOf(handler).table?.actions ?? [])].sort());
    }
  });

  it('reach every entity of the deposits table through some function, by its own prefix', () => {
    const granted = new Set(
      Object.values(expectedPartitions).flatMap((partitions) => Object.keys(partitions)),
    );
    expect([...granted].sort()).toEqual(entityPrefixes().sort());
  });

  it('leave the indexes, which hold deposit items only, to a Query on the index alone', () => {
    for (const [handler] of functionsByHandler(dev.templates.stateless)) {
      const onIndex = statementsOfFunction(dev.templates.stateless, handler).filter((statement) =>
        text(statement.Resource).includes('/index/'),
      );
      expect(actionsOf(onIndex), handler).toEqual(settingsOf(handler).index ? ['dynamodb:Query'] : []);
    }
  });
});
