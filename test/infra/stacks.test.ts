/**
 * The stacks' resources and properties, from the topology: synthesized once per configuration
 * (without bundling; app.test.ts bundles), then read.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Match } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { functionSettings, settingsOf, visibilityTimeoutFactor } from '#infra/cdk/settings';
import { stalledMetricName, sweeperRedriveMessage } from '#infra/constructs/deposits-monitoring';
import {
  depositsApi,
  type HandlerName,
  handlerFile,
  operatorApi,
  outbox,
  queues,
  sandboxApi,
  stepQueueKeys,
  sweeper,
  tables,
} from '#infra/topology';
import { credentialsKeyContext } from '#shared/adapters/credential-vault';
import { dueProjection } from '#shared/deposits/ports/records';
import { reach, wakeTargets } from '#shared/deposits/reach';
import {
  actionsOf,
  configurations,
  environmentOf,
  functionsByHandler,
  nagFindings,
  resourcesOf,
  type Statement,
  type Synthesized,
  statementsOfFunction,
  statementsOfRole,
  synthesize,
  text,
} from './synth.ts';

let dev: Synthesized;
let prod: Synthesized;

beforeAll(() => {
  dev = synthesize(configurations.devWithSandbox);
  prod = synthesize(configurations.prodWithoutSandbox);
});

/** The routes that take a caller's token (and user secret): they alone key it with the owner key. */
const tokenRoutes = depositsApi.routes
  .filter((route) => /^\/v1\/(deposits|sources)\/(create|get|answer|list|cancel)$/.test(route.path))
  .map((route) => route.handler);

const handlersOf = (component: 'deposits' | 'sandbox') =>
  [...functionSettings.values()].filter((settings) => settings.component === component);

function logicalId(
  template: Synthesized['templates']['stateful'],
  type: string,
  match: (props: Record<string, unknown>) => boolean,
) {
  const found = resourcesOf(template, type).filter(([, resource]) => match(resource.Properties ?? {}));
  if (found.length !== 1) throw new Error(`expected one ${type}, found ${found.length}`);
  return (found[0] as [string, unknown])[0];
}

/** The logical id of a topology queue (or of its DLQ) in the stateful stack, by its name. */
function queueId(key: string, which: 'Queue' | 'DeadLetterQueue', synthesized = dev): string {
  const spec = queues[key as keyof typeof queues];
  const name = `${synthesized.deployment.config.prefix}-${spec.localName}${which === 'Queue' ? '' : '-dlq'}`;
  return logicalId(synthesized.templates.stateful, 'AWS::SQS::Queue', (props) => props.QueueName === name);
}

describe('functions', () => {
  it('are one function per topology handler: Node 22 on ARM64, in the stack of their component', () => {
    const deposits = functionsByHandler(dev.templates.stateless);
    const sandbox = functionsByHandler(dev.templates.sandbox ?? expect.fail('no sandbox'));

    expect([...deposits.keys()].sort()).toEqual(
      handlersOf('deposits')
        .map((s) => s.name)
        .sort(),
    );
    expect([...sandbox.keys()].sort()).toEqual(
      handlersOf('sandbox')
        .map((s) => s.name)
        .sort(),
    );
    for (const { resource } of [...deposits.values(), ...sandbox.values()]) {
      expect(resource.Properties).toMatchObject({
        Runtime: 'nodejs22.x',
        Architectures: ['arm64'],
        Handler: 'index.handler',
        Environment: { Variables: expect.objectContaining({ NODE_OPTIONS: '--enable-source-maps' }) },
      });
    }
    // Without the sandbox, its functions are not deployed at all.
    expect(prod.deployment.sandbox).toBeUndefined();
    expect(functionsByHandler(prod.templates.stateless).size).toBe(handlersOf('deposits').length);
  });

  it('have a placeholder for their code, and no bundle, when the synthesis skips bundling (as cdk ls does)', () => {
    for (const template of [dev.templates.stateless, dev.templates.sandbox ?? expect.fail('no sandbox')]) {
      for (const { resource } of functionsByHandler(template).values()) {
        const asset = resolve(dev.outdir, String(resource.Metadata?.['aws:asset:path']));
        expect(readdirSync(asset)).toEqual(['README']);
      }
    }
  });

  it('take timeout and memory from the settings, and log to a log group of their own', () => {
    for (const template of [dev.templates.stateless, dev.templates.sandbox ?? expect.fail('no sandbox')]) {
      for (const [handler, { resource }] of functionsByHandler(template)) {
        const settings = settingsOf(handler);
        expect(resource.Properties).toMatchObject({
          Timeout: settings.timeoutSeconds,
          MemorySize: settings.memoryMb,
          LoggingConfig: { LogGroup: { Ref: expect.stringMatching(/Logs/) } },
        });
      }
    }
    dev.templates.stateless.hasResourceProperties('AWS::Logs::LogGroup', { RetentionInDays: 14 });
    prod.templates.stateless.hasResource('AWS::Logs::LogGroup', {
      Properties: { RetentionInDays: 365 },
      DeletionPolicy: 'Retain',
    });
  });

  it('are traced by X-Ray (active), sampled by the deployment’s rule: every request in dev, 5% beyond the first each second in prod', () => {
    for (const synthesized of [dev, prod]) {
      const templates = [synthesized.templates.stateless, synthesized.templates.sandbox];
      for (const template of templates.filter((each) => each !== undefined)) {
        for (const [, { resource }] of functionsByHandler(template)) {
          expect(resource.Properties).toMatchObject({ TracingConfig: { Mode: 'Active' } });
        }
      }
    }
    const rules = (synthesized: Synthesized) =>
      resourcesOf(synthesized.templates.stateful, 'AWS::XRay::SamplingRule').map(
        ([, resource]) => (resource.Properties as { SamplingRule: Record<string, unknown> }).SamplingRule,
      );
    expect(rules(dev)).toEqual([
      expect.objectContaining({
        RuleName: 'BankPayments-dev',
        ServiceName: 'BankPayments-dev-*',
        FixedRate: 1,
        ReservoirSize: 1,
      }),
    ]);
    expect(rules(prod)).toEqual([
      expect.objectContaining({ ServiceName: 'BankPayments-prod-*', FixedRate: 0.05 }),
    ]);
  });

  // Each deposits function's environment, only what its reach names: reach.test.ts.
  it('give the sandbox functions their table and secret only where they load the sandbox', () => {
    const powertools = [
      'POWERTOOLS_SERVICE_NAME',
      'POWERTOOLS_METRICS_NAMESPACE',
      'POWERTOOLS_LOG_LEVEL',
      'POWERTOOLS_LOGGER_LOG_EVENT',
      'NODE_OPTIONS',
    ];
    for (const [handler, { resource }] of functionsByHandler(
      dev.templates.sandbox ?? expect.fail('no sandbox'),
    )) {
      const variables = environmentOf(resource);
      // Health, not-found and the bank catalog load neither the sandbox nor its table.
      const loadsSandbox = settingsOf(handler).table !== undefined;
      expect(Object.keys(variables).sort(), handler).toEqual(
        [...(loadsSandbox ? [tables.sandbox.envVar, 'SANDBOX_APP_SECRET_ARN'] : []), ...powertools].sort(),
      );
    }
    expect(
      [...functionsByHandler(dev.templates.sandbox ?? expect.fail('no sandbox')).keys()]
        .filter((handler) => settingsOf(handler).table === undefined)
        .sort(),
    ).toEqual(['sandbox-banks-list', 'sandbox-health', 'sandbox-not-found']);
  });

  it('call the sandbox stack in its dialect unless a provider is configured, in the dialect configured', () => {
    // The functions that call the provider: the four steps that open credentials.
    const callers = (synthesized: Synthesized) =>
      [...functionsByHandler(synthesized.templates.stateless)].filter(
        ([handler]) => settingsOf(handler).credentialsKey === 'open',
      );
    expect(callers(dev)).toHaveLength(4);
    for (const [handler, { resource }] of callers(dev)) {
      expect(text(environmentOf(resource).PROVIDER_BASE_URL), handler).toContain('BankPayments-dev-Sandbox');
      expect(environmentOf(resource).PROVIDER_DIALECT, handler).toBe('spec');
    }
    for (const [handler, { resource }] of callers(prod)) {
      const variables = environmentOf(resource);
      expect(variables.PROVIDER_BASE_URL, handler).toBe('https://provider.example.com');
      expect(variables.PROVIDER_DIALECT, handler).toBe('dapi-v2');
    }
  });

  it('never hold a secret value: only the ARNs of the secrets, which the functions read at cold start', () => {
    for (const template of [dev.templates.stateless, dev.templates.sandbox, prod.templates.stateless]) {
      for (const [handler, { resource }] of functionsByHandler(template ?? expect.fail('no template'))) {
        const variables = environmentOf(resource);
        expect(variables.WEBHOOK_SECRET, handler).toBeUndefined();
        expect(variables.SANDBOX_APP_SECRET, handler).toBeUndefined();
        expect(text(variables), handler).not.toMatch(/resolve:secretsmanager|SecretString|whsec_/);
      }
    }
    const secretArn = (variables: Record<string, unknown>) => text(variables.WEBHOOK_SECRET_ARN);
    const notifier = functionsByHandler(prod.templates.stateless).get(queues.notify.handler);
    const variables = environmentOf(notifier?.resource);
    expect(secretArn(variables)).toMatch(/WebhookSigningSecret/);
    for (const handler of tokenRoutes) {
      const { resource } = functionsByHandler(prod.templates.stateless).get(handler) ?? expect.fail(handler);
      expect(environmentOf(resource).OWNER_KEY, handler).toBeUndefined();
      expect(text(environmentOf(resource).OWNER_KEY_SECRET_ARN), handler).toMatch(/OwnerKeySecret/);
    }
  });

  it('sweep on a recurring schedule', () => {
    const sweeperId = functionsByHandler(dev.templates.stateless).get(sweeper.handler)?.id ?? '';
    dev.templates.stateless.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: `rate(${sweeper.everyMinutes} minute${sweeper.everyMinutes === 1 ? '' : 's'})`,
      State: 'ENABLED',
      Targets: [Match.objectLike({ Arn: { 'Fn::GetAtt': [sweeperId, 'Arn'] } })],
    });
  });
});

/** The statements that allow sqs:SendMessage. */
const sendingStatements = (statements: Statement[]) =>
  statements.filter((statement) => actionsOf([statement]).includes('sqs:SendMessage'));

describe('queues', () => {
  it('each have a DLQ after the topology maxReceiveCount, hidden six times their consumer timeout', () => {
    const template = dev.templates.stateful;
    for (const [key, spec] of Object.entries(queues)) {
      const queue = template.findResources('AWS::SQS::Queue')[queueId(key, 'Queue')];
      const dlqId = queueId(key, 'DeadLetterQueue');
      const timeout = settingsOf(spec.handler).timeoutSeconds;

      expect(queue?.Properties).toMatchObject({
        QueueName: `BankPayments-dev-${spec.localName}`,
        SqsManagedSseEnabled: true,
        RedrivePolicy: {
          deadLetterTargetArn: { 'Fn::GetAtt': [dlqId, 'Arn'] },
          maxReceiveCount: spec.maxReceiveCount,
        },
      });
      expect(queue?.Properties?.VisibilityTimeout).toBeGreaterThanOrEqual(visibilityTimeoutFactor * timeout);
      expect(visibilityTimeoutFactor).toBeGreaterThanOrEqual(6);
    }
  });

  it('feed their consumer with partial-batch responses and the topology maximum concurrency', () => {
    const functions = functionsByHandler(dev.templates.stateless);
    const mappings = resourcesOf(dev.templates.stateless, 'AWS::Lambda::EventSourceMapping').filter(
      ([, resource]) => !text(resource.Properties?.EventSourceArn).includes('StreamArn'),
    );
    expect(mappings).toHaveLength(Object.keys(queues).length);
    for (const [key, spec] of Object.entries(queues)) {
      const consumer = functions.get(spec.handler)?.id ?? expect.fail(`no consumer ${spec.handler}`);
      const [, mapping] =
        mappings.find(([, resource]) =>
          text(resource.Properties?.EventSourceArn).includes(queueId(key, 'Queue')),
        ) ?? expect.fail(`no mapping for ${key}`);
      expect(mapping.Properties).toMatchObject({
        FunctionName: { Ref: consumer },
        BatchSize: spec.batchSize,
        FunctionResponseTypes: ['ReportBatchItemFailures'],
        ScalingConfig: { MaximumConcurrency: spec.maxConcurrency },
      });
    }
  });

  it('accept TLS requests only', () => {
    for (const [, policy] of resourcesOf(dev.templates.stateful, 'AWS::SQS::QueuePolicy')) {
      expect(text(policy.Properties?.PolicyDocument)).toContain('"aws:SecureTransport":"false"');
    }
    // Each queue and its DLQ, the scheduler's DLQ and the outbox relay's.
    expect(resourcesOf(dev.templates.stateful, 'AWS::SQS::QueuePolicy')).toHaveLength(
      2 * Object.keys(queues).length + 2,
    );
  });

  it('relay each deposit event from the table stream: filtered, in order, retried, then to the outbox DLQ', () => {
    // The stream, of new images.
    dev.templates.stateful.hasResourceProperties('AWS::DynamoDB::Table', {
      StreamSpecification: { StreamViewType: 'NEW_IMAGE' },
    });
    const relay = functionsByHandler(dev.templates.stateless).get(outbox.handler) ?? expect.fail('no relay');
    const [, mapping] =
      resourcesOf(dev.templates.stateless, 'AWS::Lambda::EventSourceMapping').find(([, resource]) =>
        text(resource.Properties?.EventSourceArn).includes('StreamArn'),
      ) ?? expect.fail('no stream mapping');

    expect(mapping.Properties).toMatchObject({
      FunctionName: { Ref: relay.id },
      StartingPosition: 'TRIM_HORIZON',
      BatchSize: outbox.batchSize,
      MaximumRetryAttempts: outbox.retryAttempts,
      BisectBatchOnFunctionError: true,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      FilterCriteria: {
        Filters: [
          { Pattern: JSON.stringify({ dynamodb: { NewImage: { event: { M: [{ exists: true }] } } } }) },
        ],
      },
    });
    expect(text(mapping.Properties?.DestinationConfig)).toContain('OutboxDeadLetterQueue');
    // It reads that stream, sends to the notify queue and its DLQ, and touches nothing else.
    const statements = statementsOfFunction(dev.templates.stateless, outbox.handler);
    expect(
      [...new Set(actionsOf(statements))].filter((action) => !action.startsWith('logs:')).sort(),
    ).toEqual(
      [
        'dynamodb:DescribeStream',
        'dynamodb:GetRecords',
        'dynamodb:GetShardIterator',
        'sqs:GetQueueAttributes',
        'sqs:GetQueueUrl',
        'sqs:SendMessage',
      ].sort(),
    );
    for (const statement of statements.filter((s) => actionsOf([s]).some((a) => a.startsWith('dynamodb:')))) {
      expect(text(statement.Resource)).toContain('StreamArn');
    }
    // It sends to the notify queue and sets aside in its own DLQ (the outbox relay queue's, not the
    // queue), and the mapping's DLQ takes what it still fails: no other queue.
    const sendsTo = sendingStatements(statements).map((statement) => text(statement.Resource));
    const streamDlq = logicalId(
      dev.templates.stateful,
      'AWS::SQS::Queue',
      (props) => props.QueueName === `${dev.deployment.config.prefix}-outbox-dlq`,
    );
    const reached = [
      ...Object.keys(queues).flatMap((key) => [queueId(key, 'Queue'), queueId(key, 'DeadLetterQueue')]),
      streamDlq,
    ].filter((id) => sendsTo.some((resource) => resource.includes(id)));
    expect(reached.sort()).toEqual(
      [queueId('notify', 'Queue'), queueId(outbox.queue, 'DeadLetterQueue'), streamDlq].sort(),
    );
  });

  it("relay again what is redriven to the outbox relay's queue: its consumer sends to the notify queue only", () => {
    const statements = statementsOfFunction(dev.templates.stateless, queues.outboxRelay.handler);
    const sends = sendingStatements(statements);

    expect(sends.map((statement) => text(statement.Resource))).toEqual([
      expect.stringContaining(queueId('notify', 'Queue')),
    ]);
    expect(actionsOf(statements)).toContain('sqs:ReceiveMessage');
    expect(actionsOf(statements).filter((action) => /^(dynamodb|kms|scheduler|iam):/.test(action))).toEqual(
      [],
    );
  });
});

describe('tables', () => {
  it('are on demand with point-in-time recovery and the topology TTL and indexes; protected in prod only', () => {
    const specs = [
      [dev.templates.stateful, tables.deposits, false],
      [dev.templates.sandbox, tables.sandbox, false],
      [prod.templates.stateful, tables.deposits, true],
    ] as const;
    for (const [template, spec, production] of specs) {
      const found = resourcesOf(template ?? expect.fail('no template'), 'AWS::DynamoDB::Table');
      expect(found).toHaveLength(1);
      template?.hasResource('AWS::DynamoDB::Table', {
        Properties: Match.objectLike({
          BillingMode: 'PAY_PER_REQUEST',
          PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
          TimeToLiveSpecification: { AttributeName: spec.timeToLiveAttribute, Enabled: true },
          DeletionProtectionEnabled: production,
          KeySchema: [
            { AttributeName: spec.partitionKey, KeyType: 'HASH' },
            { AttributeName: spec.sortKey, KeyType: 'RANGE' },
          ],
        }),
        DeletionPolicy: production ? 'Retain' : 'Delete',
      });
    }
    dev.templates.stateful.hasResourceProperties('AWS::DynamoDB::Table', {
      GlobalSecondaryIndexes: [
        {
          IndexName: 'byCheckAt',
          KeySchema: [
            { AttributeName: 'checkShard', KeyType: 'HASH' },
            { AttributeName: 'checkAt', KeyType: 'RANGE' },
          ],
          // What re-driving takes, not the deposit (its sealed credentials stay out of it).
          Projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: [...dueProjection] },
        },
        {
          // Keys only: a deposit's later writes never write this index.
          IndexName: 'byOwner',
          KeySchema: [
            { AttributeName: 'listedBy', KeyType: 'HASH' },
            { AttributeName: 'createdAt', KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'KEYS_ONLY' },
        },
        {
          // A backend's deposits (issue 32): the keys and the status, written when the status changes.
          IndexName: 'byBackend',
          KeySchema: [
            { AttributeName: 'backendListedBy', KeyType: 'HASH' },
            { AttributeName: 'createdAt', KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: ['status'] },
        },
        {
          // The keys and the step: written only when the bucket or the step changes.
          IndexName: 'byStatus',
          KeySchema: [
            { AttributeName: 'opsBucket', KeyType: 'HASH' },
            { AttributeName: 'createdAt', KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: ['step'] },
        },
      ],
    });
  });
});

describe('keys, secrets and the scheduler', () => {
  it('rotate the credentials key', () => {
    dev.templates.stateful.hasResourceProperties('AWS::KMS::Key', {
      EnableKeyRotation: true,
      Description: Match.stringLikeRegexp('credentials'),
    });
    for (const [, key] of resourcesOf(dev.templates.stateful, 'AWS::KMS::Key')) {
      expect(key.Properties?.EnableKeyRotation).toBe(true);
    }
  });

  // Who may use the credentials key, and who administers it: credentials-key.test.ts.

  it('keep the webhook signing secret in Secrets Manager, generated', () => {
    dev.templates.stateful.hasResourceProperties('AWS::SecretsManager::Secret', {
      GenerateSecretString: { PasswordLength: 48, ExcludePunctuation: true },
    });
    dev.templates.sandbox?.hasResourceProperties('AWS::SecretsManager::Secret', {
      GenerateSecretString: Match.objectLike({ ExcludePunctuation: true }),
    });
  });

  it('keep the owner key in Secrets Manager, generated (64 characters of [A-Za-z0-9]: 48 bytes as base64), kept in prod', () => {
    for (const synthesized of [dev, prod]) {
      const template = synthesized.templates.stateful;
      const secrets = resourcesOf(template, 'AWS::SecretsManager::Secret').filter(([id]) =>
        id.startsWith('OwnerKeySecret'),
      );
      expect(secrets).toHaveLength(1);
      const [, secret] = secrets[0] ?? expect.fail('no owner key secret');
      expect(secret.Properties?.GenerateSecretString).toEqual({
        PasswordLength: 64,
        ExcludePunctuation: true,
        IncludeSpace: false,
      });
      expect(secret.Properties?.SecretString).toBeUndefined();
      template.hasResource('AWS::SecretsManager::Secret', {
        Properties: Match.objectLike({ GenerateSecretString: Match.objectLike({ PasswordLength: 64 }) }),
        DeletionPolicy: synthesized === prod ? 'Retain' : 'Delete',
      });
    }
  });

  it('let the scheduler role send to the queues that receive wake-ups (and its own DLQ) only, for this group only', () => {
    const template = dev.templates.stateful;
    const roleId = logicalId(template, 'AWS::IAM::Role', (props) =>
      text(props.AssumeRolePolicyDocument).includes('scheduler.amazonaws.com'),
    );
    const statements = statementsOfRole(template, roleId);

    const sorted = statements.map((statement) => ({
      ...statement,
      Resource: [...(statement.Resource as unknown[])].sort((a, b) => text(b).localeCompare(text(a))),
    }));
    expect(sorted).toEqual([
      {
        Effect: 'Allow',
        Action: 'sqs:SendMessage',
        Resource: expect.arrayContaining([
          { 'Fn::GetAtt': [queueId('resolveBank', 'Queue'), 'Arn'] },
          { 'Fn::GetAtt': [queueId('ensureBeneficiary', 'Queue'), 'Arn'] },
          { 'Fn::GetAtt': [queueId('transfer', 'Queue'), 'Arn'] },
          { 'Fn::GetAtt': [expect.stringMatching(/^SchedulerDeadLetterQueue/), 'Arn'] },
        ]),
      },
    ]);
    // Those, and nothing more: the queues of the steps that receive wake-ups, and its DLQ.
    expect([...wakeTargets].sort()).toEqual(['ensure-beneficiary', 'resolve-bank', 'transfer']);
    expect(statements[0]?.Resource).toHaveLength(wakeTargets.length + 1);
    const role = template.findResources('AWS::IAM::Role')[roleId];
    expect(role?.Properties.AssumeRolePolicyDocument.Statement).toEqual([
      expect.objectContaining({
        Principal: { Service: 'scheduler.amazonaws.com' },
        Condition: {
          StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } },
          ArnEquals: { 'aws:SourceArn': { 'Fn::GetAtt': [expect.stringMatching(/^ScheduleGroup/), 'Arn'] } },
        },
      }),
    ]);
    template.resourceCountIs('AWS::Scheduler::ScheduleGroup', 1);
  });
});

describe('each function touches only what it uses', () => {
  const statementsOf = (handler: HandlerName) => statementsOfFunction(dev.templates.stateless, handler);
  const sandboxStatementsOf = (handler: HandlerName) =>
    statementsOfFunction(dev.templates.sandbox ?? expect.fail('no sandbox'), handler);
  const route = (method: string, path: string) =>
    depositsApi.routes.find((candidate) => candidate.method === method && candidate.path === path)?.handler ??
    expect.fail(`no route ${method} ${path}`);
  const withAction = (statements: Statement[], action: string) =>
    statements.filter((statement) => actionsOf([statement]).includes(action));

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
    // (One statement per entity's partition-key prefix: reach.test.ts.)
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

describe('HTTP APIs', () => {
  it('route every topology route, and everything else to the default handler', () => {
    for (const [template, specs] of [
      [dev.templates.stateless, [depositsApi, operatorApi]],
      [dev.templates.sandbox, [sandboxApi]],
    ] as const) {
      const routeKeys = resourcesOf(template ?? expect.fail('no template'), 'AWS::ApiGatewayV2::Route').map(
        ([, route]) => route.Properties?.RouteKey,
      );
      expect(routeKeys.sort()).toEqual(
        specs
          .flatMap((spec) => [...spec.routes.map((route) => `${route.method} ${route.path}`), '$default'])
          .sort(),
      );
      template?.hasResourceProperties('AWS::ApiGatewayV2::Integration', { PayloadFormatVersion: '2.0' });
      template?.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
        StageName: '$default',
        AutoDeploy: true,
        AccessLogSettings: { DestinationArn: Match.anyValue(), Format: Match.stringLikeRegexp('requestId') },
        DefaultRouteSettings: {
          ThrottlingRateLimit: Match.anyValue(),
          ThrottlingBurstLimit: Match.anyValue(),
        },
      });
    }
  });
});

describe('alarms and the dashboard', () => {
  type Alarm = { Properties: Record<string, unknown> };
  const alarms = (synthesized: Synthesized) =>
    [synthesized.templates.stateless, synthesized.templates.sandbox]
      .filter((template) => template !== undefined)
      .flatMap((template) => resourcesOf(template, 'AWS::CloudWatch::Alarm'))
      .map(([, alarm]) => alarm as Alarm);
  const on = (list: Alarm[], metric: string) =>
    list.filter((alarm) => alarm.Properties.MetricName === metric);

  it('watch every DLQ, the scheduler’s and the outbox relay’s included', () => {
    const dlqAlarms = on(alarms(dev), 'ApproximateNumberOfMessagesVisible');
    const watched = dlqAlarms.map((alarm) => text(alarm.Properties.Dimensions));

    expect(dlqAlarms).toHaveLength(Object.keys(queues).length + 2);
    for (const key of Object.keys(queues)) {
      expect(
        watched.filter((dimensions) => dimensions.includes(queueId(key, 'DeadLetterQueue'))),
        key,
      ).toHaveLength(1);
    }
    expect(watched.filter((dimensions) => dimensions.includes('SchedulerDeadLetterQueue'))).toHaveLength(1);
    expect(watched.filter((dimensions) => dimensions.includes('OutboxDeadLetterQueue'))).toHaveLength(1);
    for (const alarm of dlqAlarms) expect(alarm.Properties).toMatchObject({ Threshold: 1 });
  });

  it('watch the age of the oldest message of every queue', () => {
    const ageAlarms = on(alarms(dev), 'ApproximateAgeOfOldestMessage');
    expect(ageAlarms).toHaveLength(Object.keys(queues).length);
    for (const key of Object.keys(queues)) {
      expect(
        ageAlarms.filter((alarm) => text(alarm.Properties.Dimensions).includes(queueId(key, 'Queue'))),
        key,
      ).toHaveLength(1);
    }
  });

  it('watch every function’s errors', () => {
    const errorAlarms = on(alarms(dev), 'Errors');
    const functionIds = [dev.templates.stateless, dev.templates.sandbox].flatMap((template) =>
      [...functionsByHandler(template ?? expect.fail('no template')).values()].map(({ id }) => id),
    );

    expect(errorAlarms).toHaveLength(functionIds.length);
    for (const id of functionIds) {
      expect(
        errorAlarms.filter((alarm) => text(alarm.Properties.Dimensions).includes(id)),
        id,
      ).toHaveLength(1);
    }
  });

  it('watch deposits stuck past their expected time, from the sweeper’s own log line', () => {
    const sweeperSource = readFileSync(
      resolve(import.meta.dirname, '../..', handlerFile(sweeper.handler)),
      'utf8',
    );
    expect(sweeperSource).toContain(`'${sweeperRedriveMessage}', { redriven }`);

    const stuck = on(alarms(dev), stalledMetricName);
    expect(stuck).toEqual([
      expect.objectContaining({ Properties: expect.objectContaining({ EvaluationPeriods: 3 }) }),
    ]);
    dev.templates.stateless.hasResourceProperties('AWS::Logs::MetricFilter', {
      FilterPattern: `{ $.message = "${sweeperRedriveMessage}" }`,
      MetricTransformations: [Match.objectLike({ MetricName: stalledMetricName, MetricValue: '$.redriven' })],
    });
  });

  it('all tell the alarm topic when they fire and when they clear', () => {
    for (const alarm of [...alarms(dev), ...alarms(prod)]) {
      expect(text(alarm.Properties.AlarmActions)).toMatch(/AlarmTopic/);
      expect(text(alarm.Properties.OKActions)).toMatch(/AlarmTopic/);
    }
    prod.templates.stateful.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email',
      Endpoint: 'oncall@example.com',
    });
  });

  it('have a dashboard of deposits by status and step, queues and functions', () => {
    const [, dashboard] =
      resourcesOf(dev.templates.stateless, 'AWS::CloudWatch::Dashboard')[0] ?? expect.fail('no dashboard');
    const body = text(dashboard.Properties?.DashboardBody);
    for (const expected of [
      'DepositTransitions',
      'status=\\\\\\"done\\\\\\"',
      'step=\\\\\\"transfer\\\\\\"',
      'ApproximateAgeOfOldestMessage',
      stalledMetricName,
    ]) {
      expect(body).toContain(expected);
    }
  });
});

describe('cdk-nag AwsSolutions', () => {
  it('leaves no finding unsuppressed', () => {
    expect(nagFindings(dev.deployment)).toEqual([]);
    expect(nagFindings(prod.deployment)).toEqual([]);
  });
});
