/**
 * The deployment: from the CDK context (config.ts) to the stacks, named `BankPayments-<stage>-*`:
 *   DepositsStateful    tables, key, secret, queues, schedule group, alarm topic
 *   Sandbox             the provider sandbox (optional)
 *   DepositsStateless   the functions, the deposits API, alarms and the dashboard
 * with cdk-nag's AwsSolutions checks over all of them.
 */
import { type App, Aspects, Tags } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { DepositsStatefulStack } from '../stacks/deposits-stateful-stack.ts';
import { DepositsStatelessStack } from '../stacks/deposits-stateless-stack.ts';
import { SandboxStack } from '../stacks/sandbox-stack.ts';
import { type DeploymentConfig, readDeploymentConfig } from './config.ts';

export interface Deployment {
  config: DeploymentConfig;
  stateful: DepositsStatefulStack;
  sandbox?: SandboxStack;
  stateless: DepositsStatelessStack;
}

export function defineDeployment(app: App): Deployment {
  const config = readDeploymentConfig((key) => app.node.tryGetContext(key));
  const production = config.stage === 'prod';
  const common = { env: config.env, config, terminationProtection: production };

  const stateful = new DepositsStatefulStack(app, `${config.prefix}-DepositsStateful`, {
    ...common,
    description: `Deposits (${config.stage}): tables, key, secret, queues and DLQs, schedule group, alarm topic`,
  });
  const sandbox = config.sandbox
    ? new SandboxStack(app, `${config.prefix}-Sandbox`, {
        ...common,
        description: `Provider sandbox (${config.stage}): simulated banks behind the provider's interface`,
        alarmTopic: stateful.alarmTopic,
      })
    : undefined;
  const providerBaseUrl = config.providerBaseUrl ?? sandbox?.url;
  if (!providerBaseUrl) throw new Error('no provider: set providerBaseUrl or deploy the sandbox');
  const stateless = new DepositsStatelessStack(app, `${config.prefix}-DepositsStateless`, {
    ...common,
    description: `Deposits (${config.stage}): functions, deposits API, event sources, sweeper, alarms, dashboard`,
    stateful,
    providerBaseUrl,
  });

  Tags.of(app).add('project', 'bank-data-and-payments-service');
  Tags.of(app).add('stage', config.stage);
  Aspects.of(app).add(new AwsSolutionsChecks({ verbose: true }));
  return { config, stateful, ...(sandbox ? { sandbox } : {}), stateless };
}
