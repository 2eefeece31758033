import { beforeAll, describe, expect, it } from 'vitest';
import { settingsOf } from '#infra/cdk/settings';
import { credentialsKeyContext } from '#shared/adapters/credential-vault';
import { depositsApi, operatorApi, queues, sandboxApi, sweeper } from '#shared/topology';
import {
  dev,
  prod,
  route,
  sandboxStatementsOf,
  statementsOf,
  synthesizeBoth,
  tokenRoutes,
  withAction,
} from './stacks-world.ts';
import { actionsOf, functionsByHandler, statementsOfFunction, text } from './synth.ts';

beforeAll(synthesizeBoth);

describe('each function touches only what it uses', () => {
  it('grants no wildcard action and no "*" resource to any function, but X-Ray’s two writes, which take none', () => {
    for (const template of [dev.templates.stateless, dev.templates.sandbox ?? expect.fail('no sandbox')]) {
      for (const handler of functionsByHandler(template).keys()) {
        const statements = statementsOfFunction(template, handler);
        expect(
          actionsOf(statements).filter((action) => action.includes('*')),
          handler,
        ).toEqual([]);
        const onEverything = statements.filter((statement) => statement.Resource === '*');
        expect(
          onEverything.map((statement) => statement.Action),
          handler,
        ).toEqual([['xray:PutTelemetryRecords', 'xray:PutTraceSegments']]);
        // Its own log group, first.
        expect(withAction(statements, 'logs:PutLogEvents'), handler).toHaveLength(1);
      }
    }
  });

  it('keeps the notifier to its queue, its secret and its delivery records: no deposit, no key, no scheduler', () => {
    const actions = actionsOf(statementsOf(queues.notify.handler));

    expect(actions.filter((action) => /^(kms|scheduler|iam):/.test(action))).toEqual([]);
    // Each try recorded on its event's record, in the records' own partitions (`DELIVERY#`).
    expect(actions.filter((action) => action.startsWith('dynamodb:'))).toEqual(['dynamodb:UpdateItem']);
    expect(text(statementsOf(queues.notify.handler))).toContain('DELIVERY#*');
    expect(actions).toContain('sqs:ReceiveMessage');
    expect(actions).toContain('sqs:ChangeMessageVisibility');
    expect(actions).not.toContain('sqs:SendMessage');
    expect(actions).toContain('secretsmanager:GetSecretValue');
  });

  it('keeps the deposits API from the scheduler (but the cancels, deleting), and its read route to reading', () => {
    const cancels = [route('POST', '/v1/deposits/cancel'), route('POST', '/v1/sources/cancel')];
    for (const handler of [
      ...depositsApi.routes.map((candidate) => candidate.handler),
      depositsApi.defaultHandler,
    ]) {
      const actions = actionsOf(statementsOf(handler));
      expect(
        actions.filter((action) => /^(scheduler|iam):/.test(action)),
        handler,
      ).toEqual(cancels.includes(handler) ? ['scheduler:DeleteSchedule'] : []);
      // The owner key, read by the routes that take a caller's token; no other secret.
      expect(
        actions.filter((action) => action.startsWith('secretsmanager:')),
        handler,
      ).toEqual(tokenRoutes.includes(handler) ? ['secretsmanager:GetSecretValue'] : []);
    }
    const get = actionsOf(statementsOf(route('POST', '/v1/deposits/get')));
    expect(get.filter((action) => !action.startsWith('logs:'))).toEqual([
      'dynamodb:GetItem',
      'secretsmanager:GetSecretValue',
    ]);
    const create = statementsOf(route('POST', '/v1/deposits/create'));
    expect(actionsOf(withAction(create, 'kms:GenerateDataKey'))).toEqual(['kms:GenerateDataKey']);
    expect(actionsOf(create)).not.toContain('kms:Decrypt');
    for (const statement of withAction(create, 'kms:GenerateDataKey')) {
      expect(statement.Condition).toEqual({
        StringEquals: { 'kms:EncryptionContext:purpose': credentialsKeyContext.purpose },
      });
    }
    for (const handler of [route('GET', '/health'), depositsApi.defaultHandler]) {
      expect(
        actionsOf(statementsOf(handler)).filter((action) => !action.startsWith('logs:')),
        handler,
      ).toEqual([]);
    }
  });

  it('lets only the routes that take a caller’s token read the owner key: no step, operator, notifier or sweeper', () => {
    for (const synthesized of [dev, prod]) {
      const readers = [...functionsByHandler(synthesized.templates.stateless).keys()].filter((handler) =>
        statementsOfFunction(synthesized.templates.stateless, handler).some((statement) =>
          text(statement.Resource).includes('OwnerKeySecret'),
        ),
      );
      expect(readers.sort()).toEqual([...tokenRoutes].sort());
      for (const handler of readers) {
        const reads = statementsOfFunction(synthesized.templates.stateless, handler).filter((statement) =>
          text(statement.Resource).includes('OwnerKeySecret'),
        );
        expect(actionsOf(reads), handler).toEqual(['secretsmanager:GetSecretValue']);
      }
    }
    expect(tokenRoutes).toHaveLength(9);
    for (const handler of [
      ...operatorApi.routes.map((r) => r.handler),
      ...Object.values(queues).map((q) => q.handler),
    ])
      expect(settingsOf(handler).secrets, handler).not.toContain('ownerKey');
  });

  it('lets only the steps that arm wake-ups create schedules, in the group, passing the scheduler role', () => {
    for (const [key, spec] of Object.entries(queues)) {
      const statements = statementsOf(spec.handler);
      const create = withAction(statements, 'scheduler:CreateSchedule');
      const pass = withAction(statements, 'iam:PassRole');
      if (!settingsOf(spec.handler).createsSchedules) {
        expect(create, key).toEqual([]);
        expect(pass, key).toEqual([]);
        continue;
      }
      expect(
        create.map((statement) => text(statement.Resource)),
        key,
      ).toEqual([expect.stringMatching(/:schedule\/.*ScheduleGroup.*\/\*/)]);
      expect(pass, key).toEqual([
        expect.objectContaining({
          Resource: expect.anything(),
          Condition: { StringEquals: { 'iam:PassedToService': 'scheduler.amazonaws.com' } },
        }),
      ]);
      expect(text(pass[0]?.Resource)).toMatch(/SchedulerRole/);
    }
    expect(Object.values(queues).some((spec) => settingsOf(spec.handler).createsSchedules)).toBe(true);
  });

  it('lets the sweeper query the in-flight index, move check times, and send steps, nothing else on the table', () => {
    const statements = statementsOf(sweeper.handler);
    const dynamodb = statements.filter((statement) =>
      actionsOf([statement]).some((a) => a.startsWith('dynamodb:')),
    );

    expect(actionsOf(dynamodb).sort()).toEqual(['dynamodb:Query', 'dynamodb:UpdateItem']);
    const query = dynamodb.find((statement) => actionsOf([statement]).includes('dynamodb:Query'));
    expect(text(query?.Resource)).toContain('/index/byCheckAt');
    expect(actionsOf(statements).filter((action) => action.startsWith('kms:'))).toEqual([]);
  });

  it('keeps the sandbox to its table and its secret, and health, not-found and the catalog to their logs', () => {
    for (const handler of [
      ...sandboxApi.routes.map((candidate) => candidate.handler),
      sandboxApi.defaultHandler,
    ]) {
      const actions = actionsOf(sandboxStatementsOf(handler));
      expect(
        actions.filter((action) => /^(sqs|kms|scheduler|iam):/.test(action)),
        handler,
      ).toEqual([]);
      const loadsSandbox = settingsOf(handler).table !== undefined;
      expect(actions.includes('secretsmanager:GetSecretValue'), handler).toBe(loadsSandbox);
      expect(actions.filter((action) => action.startsWith('dynamodb:')).sort(), handler).toEqual(
        [...(settingsOf(handler).table?.actions ?? [])].sort(),
      );
      // The rest reach nothing beyond their logs.
      if (!loadsSandbox)
        expect(
          actions.filter((action) => !action.startsWith('logs:')),
          handler,
        ).toEqual([]);
    }
  });
});
