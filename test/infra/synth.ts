/**
 * Synthesizes the CDK app in this process, with cdk.json's context (as `cdk synth` does) plus the
 * test's. Bundling is skipped unless asked for: the templates are the same apart from the code's
 * asset, and esbuild runs once per process for every function (`function-bundles.ts`), so the one
 * test file that bundles synthesizes every configuration into a single directory.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { App, type Stack } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import { type Deployment, defineDeployment } from '#infra/cdk/deployment';
import { localWallets } from '#infra/local/wallets';
import { type HandlerName, watchedQueues, watchedQueuesVariable } from '#shared/topology';

const projectRoot = resolve(import.meta.dirname, '../..');
const cdkJson = JSON.parse(readFileSync(join(projectRoot, 'cdk.json'), 'utf8')) as {
  context: Record<string, unknown>;
};

/** A wallet account for stages without the local defaults (the local AED one will do). */
export const prodWallets = localWallets.slice(0, 1);

export const configurations = {
  devWithSandbox: { stage: 'dev' },
  devWithoutSandbox: { stage: 'dev', sandbox: 'false', providerBaseUrl: 'https://provider.example.com' },
  prodWithSandbox: { stage: 'prod', sandbox: 'true', walletAccounts: JSON.stringify(prodWallets) },
  prodWithoutSandbox: {
    stage: 'prod',
    providerBaseUrl: 'https://provider.example.com',
    providerDialect: 'dapi-v2',
    walletAccounts: JSON.stringify(prodWallets),
    webhookUrl: 'https://hooks.example.com/deposits',
    alarmEmail: 'oncall@example.com',
  },
} satisfies Record<string, Record<string, string>>;

export interface Synthesized {
  app: App;
  deployment: Deployment;
  outdir: string;
  templates: { stateful: Template; stateless: Template; sandbox?: Template };
}

/**
 * Each configuration synthesized without bundling, once per worker: the infra project shares one
 * module graph between its files (`isolate: false`), so the files that assert on the same
 * configuration read one synthesis (the templates are read-only).
 */
const synthesized = new Map<string, Synthesized>();

export function synthesize(
  context: Record<string, string>,
  options: { bundle?: boolean; outdir?: string } = {},
): Synthesized {
  if (options.bundle || options.outdir) return synthesizeNow(context, options);
  const key = JSON.stringify(Object.entries(context).sort());
  const known = synthesized.get(key);
  if (known) return known;
  const made = synthesizeNow(context, options);
  synthesized.set(key, made);
  return made;
}

function synthesizeNow(
  context: Record<string, string>,
  options: { bundle?: boolean; outdir?: string },
): Synthesized {
  const outdir = options.outdir ?? mkdtempSync(join(tmpdir(), 'cdk-test-'));
  const app = new App({
    outdir,
    context: {
      ...cdkJson.context,
      // As the CLI does: templates name their assets' directories.
      'aws:cdk:enable-asset-metadata': true,
      ...(options.bundle ? {} : { 'aws:cdk:bundling-stacks': [] }),
      ...context,
    },
  });
  const deployment = defineDeployment(app);
  app.synth();
  // Read the templates now: another configuration synthesized into the same directory overwrites them.
  const templates = {
    stateful: Template.fromStack(deployment.stateful),
    stateless: Template.fromStack(deployment.stateless),
    ...(deployment.sandbox ? { sandbox: Template.fromStack(deployment.sandbox) } : {}),
  };
  return { app, deployment, outdir, templates };
}

export function stacksOf(deployment: Deployment): Stack[] {
  return [deployment.stateful, deployment.stateless, ...(deployment.sandbox ? [deployment.sandbox] : [])];
}

/** cdk-nag findings left unsuppressed (errors and warnings), as `path: message` lines. */
export function nagFindings(deployment: Deployment): string[] {
  return stacksOf(deployment).flatMap((stack) => {
    const annotations = Annotations.fromStack(stack);
    const pattern = Match.stringLikeRegexp('AwsSolutions-.*');
    return [...annotations.findError('*', pattern), ...annotations.findWarning('*', pattern)].map(
      (finding) => `${finding.id}: ${String(finding.entry.data)}`,
    );
  });
}

type Resource = { Type: string; Properties?: Record<string, unknown>; Metadata?: Record<string, unknown> };

export function resourcesOf(template: Template, type: string): [string, Resource][] {
  return Object.entries(template.findResources(type) as Record<string, Resource>);
}

/**
 * The Lambda functions of a template, by the handler's name (its description is the handler's module,
 * `functions/<group>/<file>.ts`, which the name `<group>-<file>` gives).
 */
export function functionsByHandler(template: Template): Map<HandlerName, { id: string; resource: Resource }> {
  return new Map(
    resourcesOf(template, 'AWS::Lambda::Function').map(([id, resource]) => {
      const file = String(resource.Properties?.Description);
      const name = /^functions\/([^/]+)\/(.+)\.ts$/.exec(file);
      return [(name ? `${name[1]}-${name[2]}` : file) as HandlerName, { id, resource }];
    }),
  );
}

export interface Statement {
  Effect: string;
  Action: string | string[];
  Resource: unknown;
  Condition?: Record<string, unknown>;
}

/** Every statement of the policies attached to a function's role. */
export function statementsOfFunction(template: Template, handler: HandlerName): Statement[] {
  const fn = functionsByHandler(template).get(handler);
  if (!fn) throw new Error(`no function for ${handler}`);
  const role = fn.resource.Properties?.Role as { 'Fn::GetAtt': [string, string] } | undefined;
  const roleId = role?.['Fn::GetAtt'][0];
  if (!roleId) throw new Error(`${handler} has no role of this stack`);
  return statementsOfRole(template, roleId);
}

export function statementsOfRole(template: Template, roleId: string): Statement[] {
  const role = template.findResources('AWS::IAM::Role')[roleId] as Resource | undefined;
  const inline = (
    (role?.Properties?.Policies ?? []) as { PolicyDocument: { Statement: Statement[] } }[]
  ).flatMap((policy) => policy.PolicyDocument.Statement);
  const attached = resourcesOf(template, 'AWS::IAM::Policy')
    .filter(([, policy]) =>
      ((policy.Properties?.Roles ?? []) as { Ref?: string }[]).some((ref) => ref.Ref === roleId),
    )
    .flatMap(
      ([, policy]) =>
        (policy.Properties?.PolicyDocument as { Statement: Statement[] } | undefined)?.Statement ?? [],
    );
  return [...inline, ...attached];
}

/**
 * The actions of these statements, but X-Ray's two writes, which every function has alike (active
 * tracing; stacks-access.test.ts holds them to those two).
 */
export function actionsOf(statements: Statement[]): string[] {
  return statements
    .flatMap((statement) => (Array.isArray(statement.Action) ? statement.Action : [statement.Action]))
    .filter((action) => !action.startsWith('xray:'));
}

/** A function's environment variables. */
export function environmentOf(resource: Resource | undefined): Record<string, unknown> {
  const environment = resource?.Properties?.Environment as
    | { Variables?: Record<string, unknown> }
    | undefined;
  return environment?.Variables ?? {};
}

/** A resolved value as text, so that assertions can look for the names of what it references. */
export function text(value: unknown): string {
  return JSON.stringify(value);
}

/** Plausible values for what CloudFormation resolves at deploy time (references to other resources). */
export function stubEnvironment(variables: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(variables).map(([name, value]) => {
      if (typeof value === 'string') return [name, value];
      if (name.endsWith('_QUEUE_URL') || name.endsWith('_DLQ_URL'))
        return [name, `https://sqs.us-east-1.amazonaws.com/123456789012/${name}`];
      if (name.endsWith('_SECRET_ARN'))
        return [name, `arn:aws:secretsmanager:us-east-1:123456789012:secret:${name}-AbCdEf`];
      if (name.endsWith('_KEY_ARN'))
        return [name, 'arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab'];
      if (name.endsWith('_ROLE_ARN')) return [name, `arn:aws:iam::123456789012:role/${name}`];
      if (name.endsWith('_QUEUE_ARN') || name.endsWith('_DLQ_ARN'))
        return [name, `arn:aws:sqs:us-east-1:123456789012:${name}`];
      if (name.endsWith('_NAME')) return [name, name.toLowerCase()];
      if (name === 'PROVIDER_BASE_URL') return [name, 'https://sandbox.execute-api.us-east-1.amazonaws.com/'];
      if (name === watchedQueuesVariable) {
        const url = (queue: string) => `https://sqs.us-east-1.amazonaws.com/123456789012/${queue}`;
        const watched = watchedQueues((key) => ({ url: url(key), dlqUrl: url(`${key}-dlq`) }));
        return [name, JSON.stringify(watched)];
      }
      throw new Error(`no stand-in for ${name}: ${JSON.stringify(value)}`);
    }),
  );
}

/** The routes of one HTTP API of the stateless stack (its construct id in their API's reference). */
export function routesOf(synthesized: Synthesized, api: 'DepositsApi' | 'OperatorApi') {
  return new Map(
    resourcesOf(synthesized.templates.stateless, 'AWS::ApiGatewayV2::Route')
      .filter(([, route]) => JSON.stringify(route.Properties?.ApiId).includes(`"${api}`))
      .map(([, route]) => [String(route.Properties?.RouteKey), route.Properties ?? {}]),
  );
}

/** The managed policy of the stateless stack whose logical id starts so. */
export function managedPolicy(synthesized: Synthesized, id: string) {
  return resourcesOf(synthesized.templates.stateless, 'AWS::IAM::ManagedPolicy').find(([logicalId]) =>
    logicalId.startsWith(id),
  )?.[1];
}

/** What Powertools reads from every function's environment, and the Node options each gets. */
export const powertools = [
  'POWERTOOLS_SERVICE_NAME',
  'POWERTOOLS_METRICS_NAMESPACE',
  'POWERTOOLS_LOG_LEVEL',
  'POWERTOOLS_LOGGER_LOG_EVENT',
  'NODE_OPTIONS',
];
