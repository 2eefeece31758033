/**
 * cdk-nag (AwsSolutions) runs over every stack. A finding is either fixed or suppressed here, on the
 * one resource it concerns, with the reason below; docs/deploying.md lists them all.
 */
import { NagSuppressions } from 'cdk-nag';
import type { IConstruct } from 'constructs';

interface Suppression {
  id: string;
  reason: string;
  appliesTo?: (string | { regex: string })[];
}

export const suppressions = {
  nodeRuntime: {
    id: 'AwsSolutions-L1',
    reason:
      'Node.js 22 is the runtime the service is built and tested for (DESIGN §7, esbuild target node22); moving to a newer runtime is a deliberate upgrade with its own test run, not a side effect of a cdk-nag release.',
  },
  publicApi: {
    id: 'AwsSolutions-APIG4',
    reason:
      "Open routes, each for a reason. The sandbox's: authorization is the provider's, per request (every call carries the connection's bearer token and the app and user secrets, which the sandbox checks itself, as the provider does); a gateway authorizer would need an identity its callers do not have. The deposits API's health route: it reads nothing and answers `ok`; every other deposits route, the default one included, requires the wallet backend's IAM signature or JWT.",
  },

  webhookSecretRotation: {
    id: 'AwsSolutions-SMG4',
    reason:
      'The webhook signing secret is shared with the receiver: it is rotated by hand with the receiver, with an overlap in which each delivery is signed with the new and the previous secret (docs/deploying.md, "Rotate the webhook secret"), not by a Lambda on a timer that the receiver would not know of.',
  },
  xrayWrite: {
    id: 'AwsSolutions-IAM5',
    reason:
      "X-Ray's xray:PutTraceSegments and xray:PutTelemetryRecords take no resource (the Service Authorization Reference lists none for them): Lambda's active tracing grants exactly those two on * to each function's role; nothing else of any function is on *.",
  },
  ownerKeyRotation: {
    id: 'AwsSolutions-SMG4',
    reason:
      'The owner key keys every deposit, lease and claim by its caller: a new key makes the deposits in flight unreachable by their owners, so it is rotated by hand with no deposit in flight (docs/deploying.md, "The owner key"), never by a Lambda on a timer.',
  },
  sandboxSecretRotation: {
    id: 'AwsSolutions-SMG4',
    reason:
      'The sandbox application secret is a test credential of the provider stand-in that its users type into requests; rotating it on a timer would break their scripts. It guards only simulated banks.',
  },
  schedulerDeadLetterQueue: {
    id: 'AwsSolutions-SQS3',
    reason:
      'This queue is itself a dead-letter queue: EventBridge Scheduler sends it the wake-ups it could not deliver (schedules name it as their DeadLetterConfig), which cdk-nag cannot see as a redrive policy.',
  },
  outboxDeadLetterQueue: {
    id: 'AwsSolutions-SQS3',
    reason:
      'This queue is itself a dead-letter queue: the outbox relay’s event source mapping sends it the stream records it could not relay (its on-failure destination), which cdk-nag cannot see as a redrive policy.',
  },
  schedulesInGroup: {
    id: 'AwsSolutions-IAM5',
    reason:
      'Wake-up schedules are named per deposit at run time (`<deposit id>-<time>`); the grant is CreateSchedule on the schedules of the service’s own schedule group only, and PassRole of its one scheduler role.',
  },
} satisfies Record<string, Suppression>;

export type SuppressionName = keyof typeof suppressions;

/** Suppresses the named findings on a construct and its children, with their reasons. */
export function suppress(
  construct: IConstruct,
  names: SuppressionName[],
  appliesTo?: Suppression['appliesTo'],
): void {
  NagSuppressions.addResourceSuppressions(
    construct,
    names.map((name) => ({ ...suppressions[name], ...(appliesTo ? { appliesTo } : {}) })),
    true,
  );
}
