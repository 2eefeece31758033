import { Match } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { settingsOf, visibilityTimeoutFactor } from '#infra/cdk/settings';
import { dueProjection } from '#shared/deposits/ports/records';
import { wakeTargets } from '#shared/deposits/reach';
import { outbox, queues, tables } from '#shared/topology';
import { dev, logicalId, prod, queueId, sendingStatements, synthesizeBoth } from './stacks-world.ts';
import {
  actionsOf,
  functionsByHandler,
  resourcesOf,
  statementsOfFunction,
  statementsOfRole,
  text,
} from './synth.ts';

beforeAll(synthesizeBoth);

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
          // A backend's deposits: the keys and the status, written when the status changes.
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
