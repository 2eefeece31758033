import { beforeAll, describe, expect, it } from 'vitest';
import { credentialsKeyContext } from '#shared/adapters/credential-vault';
import { reach } from '#shared/deposits/reach';
import { type HandlerName, queues, stepQueueKeys, sweeper } from '#shared/topology';
import { queueId, route, statementsOf, synthesizeBoth, withAction } from './stacks-world.ts';
import { actionsOf, text } from './synth.ts';

beforeAll(synthesizeBoth);

describe("each function touches only what it uses: its context's reach", () => {
  /**
   * Least privilege, written out here rather than derived: what each orchestrator handler's context
   * uses (shared/deposits/reach.ts), as the calls its adapters make. A step that starts touching
   * more fails this test until someone decides it should.
   */
  const expectedReach: Record<
    string,
    { table: string[]; sends: string[]; kms?: string; schedules: boolean; index?: string[] }
  > = {
    // The steps that open credentials read them with the deposit (a Query of its partition).
    // Every handler that may fail a deposit frees its claim and takes a failed source's shared wake-up
    // (DeleteItem), and sends to the queues its followers are woken at (transfer, ensure-beneficiary);
    // every one that frees a lease, to those of the steps that wait for one (and resolve-bank).
    [queues.resolveBank.handler]: {
      table: ['GetItem', 'Query', 'PutItem', 'UpdateItem', 'DeleteItem'],
      sends: ['resolveBank', 'ensureBeneficiary', 'transfer'],
      kms: 'kms:Decrypt',
      // The expiry of a question the bank asks on its metadata.
      schedules: true,
    },
    [queues.ensureBeneficiary.handler]: {
      table: ['GetItem', 'Query', 'PutItem', 'UpdateItem', 'DeleteItem'],
      sends: ['resolveBank', 'ensureBeneficiary', 'waitCooldown', 'transfer'],
      kms: 'kms:Decrypt',
      schedules: true,
    },
    // Wakes the transfer, or the look-up of a beneficiary a bank hid in its cool-down. Writes only
    // to end a deposit whose wake-up cannot be armed, try after try.
    [queues.waitCooldown.handler]: {
      table: ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem'],
      sends: ['resolveBank', 'transfer', 'ensureBeneficiary'],
      schedules: true,
    },
    // A ready payment source wakes the deposits that followed its wake-up, at the transfer or at
    // ensure-beneficiary's look-up (and takes the shared wake-up: a DeleteItem).
    [queues.transfer.handler]: {
      table: ['GetItem', 'Query', 'PutItem', 'UpdateItem', 'DeleteItem'],
      sends: ['resolveBank', 'transfer', 'waitCooldown', 'reconcile', 'ensureBeneficiary'],
      kms: 'kms:Decrypt',
      schedules: true,
    },
    // Reads the transfer's operation: again later, or, after the bank's refusal, the transfer again
    // or its cool-down; a question it reads back expires through the transfer's queue.
    [queues.reconcile.handler]: {
      table: ['GetItem', 'Query', 'PutItem', 'UpdateItem', 'DeleteItem'],
      sends: ['resolveBank', 'reconcile', 'transfer', 'waitCooldown', 'ensureBeneficiary'],
      kms: 'kms:Decrypt',
      schedules: true,
    },
    [route('POST', '/v1/deposits/create')]: {
      table: ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem'],
      sends: ['resolveBank', 'ensureBeneficiary', 'transfer'],
      kms: 'kms:GenerateDataKey',
      schedules: false,
    },
    [route('POST', '/v1/deposits/get')]: { table: ['GetItem'], sends: [], schedules: false },
    // The answer seals the caller's answers and sends the deposit back to the step that asked; one
    // that came too late fails it (its claim released, a source's followers woken).
    [route('POST', '/v1/deposits/answer')]: {
      table: ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem'],
      sends: ['resolveBank', 'ensureBeneficiary', 'transfer'],
      kms: 'kms:GenerateDataKey',
      schedules: false,
    },
    // The sources API: the same grants model as the deposits routes.
    [route('POST', '/v1/sources/create')]: {
      table: ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem'],
      sends: ['resolveBank', 'ensureBeneficiary', 'transfer'],
      kms: 'kms:GenerateDataKey',
      schedules: false,
    },
    [route('POST', '/v1/sources/get')]: { table: ['GetItem'], sends: [], schedules: false },
    [route('POST', '/v1/sources/list')]: {
      table: ['BatchGetItem'],
      sends: [],
      schedules: false,
      // The connection's list, or (by the backend's own identity) the backend's.
      index: ['byOwner', 'byBackend'],
    },
    [route('POST', '/v1/sources/cancel')]: {
      table: ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem'],
      sends: ['resolveBank', 'ensureBeneficiary', 'transfer'],
      schedules: false,
    },
    [route('POST', '/v1/deposits/list')]: {
      table: ['BatchGetItem'],
      sends: [],
      schedules: false,
      // The connection's list, or (by the backend's own identity) the backend's.
      index: ['byOwner', 'byBackend'],
    },
    [route('POST', '/v1/deposits/cancel')]: {
      table: ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem'],
      // A cancelled payment source's followers are woken at their steps; a deposit waiting for the
      // lease it frees, at its own.
      sends: ['resolveBank', 'ensureBeneficiary', 'transfer'],
      schedules: false,
    },
    [sweeper.handler]: {
      // Moves the check time of what it re-drives.
      table: ['UpdateItem'],
      sends: ['resolveBank', 'ensureBeneficiary', 'waitCooldown', 'transfer', 'reconcile'],
      schedules: false,
      index: ['byCheckAt'],
    },
  };

  it.for(Object.keys(expectedReach))('grants %s exactly what its context uses', (handler) => {
    const expected = expectedReach[handler] ?? expect.fail(`no expectation for ${handler}`);
    const statements = statementsOf(handler as HandlerName);
    const actions = actionsOf(statements);

    // Table: exactly these item actions, on the deposits table itself.
    const onTable = statements.filter(
      (statement) =>
        actionsOf([statement]).some((action) => action.startsWith('dynamodb:')) &&
        !text(statement.Resource).includes('/index/'),
    );
    // (One statement per entity's partition-key prefix: reach-grants.test.ts.)
    expect([...new Set(actionsOf(onTable))].sort(), handler).toEqual(
      expected.table.map((a) => `dynamodb:${a}`).sort(),
    );
    // Indexes: Query on its own one only.
    for (const index of ['byCheckAt', 'byOwner', 'byBackend', 'byStatus']) {
      const onIndex = statements.filter((statement) => text(statement.Resource).includes(`/index/${index}`));
      expect(actionsOf(onIndex), `${handler} ${index}`).toEqual(
        expected.index?.includes(index) ? ['dynamodb:Query'] : [],
      );
    }

    // Queues: SendMessage to exactly these, and no other queue of the stack.
    const sends = withAction(statements, 'sqs:SendMessage');
    const reached = Object.keys(queues).filter((key) =>
      sends.some((statement) => text(statement.Resource).includes(queueId(key, 'Queue'))),
    );
    expect(reached.sort(), handler).toEqual([...expected.sends].sort());
    expect(actionsOf(sends), handler).toEqual(expected.sends.length ? ['sqs:SendMessage'] : []);

    // The credentials key: seal (the API) or open (the steps), never both; nothing for the rest.
    expect([...new Set(actions.filter((action) => action.startsWith('kms:')))], handler).toEqual(
      expected.kms ? [expected.kms] : [],
    );
    // An opener decrypts the vault's data keys only (the Encryption SDK's form has no reader left).
    expect(
      withAction(statements, 'kms:Decrypt').map((statement) => statement.Condition),
      handler,
    ).toEqual(
      expected.kms === 'kms:Decrypt'
        ? [{ StringEquals: { 'kms:EncryptionContext:purpose': credentialsKeyContext.purpose } }]
        : [],
    );
    // Schedules only where it arms wake-ups.
    expect(actions.includes('scheduler:CreateSchedule'), handler).toBe(expected.schedules);
    expect(actions.includes('iam:PassRole'), handler).toBe(expected.schedules);
  });

  it('derives the grants from the reach the step contexts are typed by', () => {
    const stepOf = (key: string) => queues[key as keyof typeof queues].localName;
    for (const step of [
      'resolve-bank',
      'ensure-beneficiary',
      'wait-cooldown',
      'transfer',
      'reconcile',
    ] as const) {
      const handler = queues[stepQueueKeys[step]].handler;
      const expected = expectedReach[handler] ?? expect.fail(`no expectation for ${handler}`);
      expect(expected.sends.map(stepOf).sort(), step).toEqual([...reach[handler].sends].sort());
      expect(expected.schedules, step).toBe(reach[handler].wakes.length > 0);
    }
  });
});
