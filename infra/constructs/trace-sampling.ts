/**
 * X-Ray's sampling of one deployment's functions (their services are their names, all of which begin
 * with the deployment's prefix): the first request each second, then `fixedRate` of the others
 * (CDK context `traceSampleRate`). A Lambda function decides at each invocation's start, an API
 * call's and a queue consumer's alike; a deposit's traced invocations are found by its annotation
 * (`depositId`), and the consumers' traces link to the messages' (docs/operating.md "Tracing").
 */
import * as xray from 'aws-cdk-lib/aws-xray';
import { Construct } from 'constructs';

export interface TraceSamplingProps {
  prefix: string;
  fixedRate: number;
}

export class TraceSampling extends Construct {
  readonly rule: xray.CfnSamplingRule;

  constructor(scope: Construct, id: string, props: TraceSamplingProps) {
    super(scope, id);
    this.rule = new xray.CfnSamplingRule(this, 'Rule', {
      samplingRule: {
        // At most 32 characters: `BankPayments-prod` and the like.
        ruleName: props.prefix.slice(0, 32),
        // Before X-Ray's own default rule (10,000), after any an account sets narrower.
        priority: 100,
        fixedRate: props.fixedRate,
        reservoirSize: 1,
        serviceName: `${props.prefix}-*`,
        serviceType: '*',
        host: '*',
        httpMethod: '*',
        urlPath: '*',
        resourceArn: '*',
        version: 1,
      },
    });
  }
}
