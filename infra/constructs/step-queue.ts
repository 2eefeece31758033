/**
 * A topology queue and its dead-letter queue: SQS-managed encryption, TLS only, a message that
 * fails `maxReceiveCount` times rests in the DLQ for 14 days. Hidden for six times its consumer's
 * timeout while a consumer works on it, so a slow consumer never sees its message handed to another.
 */
import { Duration, type RemovalPolicy } from 'aws-cdk-lib';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { QueueSpec } from '#shared/topology';

export interface StepQueueProps {
  spec: QueueSpec;
  /** Names: `<prefix>-<local name>` and `<prefix>-<local name>-dlq`. */
  prefix: string;
  visibilityTimeout: Duration;
  removalPolicy: RemovalPolicy;
}

export const dlqRetention = Duration.days(14);

export class StepQueue extends Construct {
  readonly queue: sqs.Queue;
  readonly deadLetterQueue: sqs.Queue;

  constructor(scope: Construct, id: string, props: StepQueueProps) {
    super(scope, id);
    const name = `${props.prefix}-${props.spec.localName}`;
    this.deadLetterQueue = new sqs.Queue(this, 'DeadLetterQueue', {
      queueName: `${name}-dlq`,
      retentionPeriod: dlqRetention,
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      removalPolicy: props.removalPolicy,
    });
    this.queue = new sqs.Queue(this, 'Queue', {
      queueName: name,
      visibilityTimeout: props.visibilityTimeout,
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: props.spec.maxReceiveCount },
      removalPolicy: props.removalPolicy,
    });
  }
}
