/**
 * Where a stage's operator API is: `--url`, or the `OperatorApiUrl` output of the stage's stateless
 * stack (`BankPayments-<stage>-DepositsStateless`, infra/cdk/deployment.ts), read with DescribeStacks.
 * The arguments follow the CDK's: `-c stage=dev`, `-c region=eu-west-1` (or `--context key=value`).
 */
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { stages } from '#infra/cdk/context';

export interface ConsoleArgs {
  url?: string;
  stage: string;
  region?: string;
}

/** A wrong or missing argument, a stack without the output: said in one line, without a stack trace. */
export class ConsoleSetupError extends Error {
  override name = 'ConsoleSetupError';
}

export function parseArgs(argv: string[]): ConsoleArgs {
  const context: Record<string, string> = {};
  let url: string | undefined;
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index] ?? '';
    const value = () => {
      const next = argv[++index];
      if (next === undefined) throw new ConsoleSetupError(`${arg} needs a value`);
      return next;
    };
    if (arg === '--url') url = value();
    else if (arg.startsWith('--url=')) url = arg.slice('--url='.length);
    else if (arg === '-c' || arg === '--context') {
      const [key, ...rest] = value().split('=');
      if (!key || rest.length === 0)
        throw new ConsoleSetupError(`${arg} takes key=value, for example -c stage=dev`);
      context[key] = rest.join('=');
    } else
      throw new ConsoleSetupError(
        `Unknown argument ${arg}: use -c stage=<stage> [-c region=<region>] or --url <url>`,
      );
  }
  const stage = context.stage ?? 'dev';
  if (!(stages as readonly string[]).includes(stage)) {
    throw new ConsoleSetupError(`stage: ${stage} is not one of ${stages.join(', ')}`);
  }
  if (url !== undefined) {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new ConsoleSetupError(`--url: ${url} is not a URL`);
    }
    if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') {
      throw new ConsoleSetupError(`--url: ${url} is not an http(s) URL`);
    }
  }
  return { stage, ...(url ? { url } : {}), ...(context.region ? { region: context.region } : {}) };
}

/** The region of an `execute-api` URL (`https://<id>.execute-api.<region>.amazonaws.com/`), if it is one. */
export function regionOfApiUrl(url: string): string | undefined {
  return /\.execute-api\.([a-z0-9-]+)\.amazonaws\.com(\.cn)?$/.exec(new URL(url).hostname)?.[1];
}

export function stackNameOf(stage: string): string {
  return `BankPayments-${stage}-DepositsStateless`;
}

/** The stage's operator API URL, from its stack's outputs. */
export async function operatorApiUrlOf(stage: string, region: string): Promise<string> {
  const stackName = stackNameOf(stage);
  const client = new CloudFormationClient({ region });
  try {
    const { Stacks } = await client.send(new DescribeStacksCommand({ StackName: stackName }));
    const url = Stacks?.[0]?.Outputs?.find((output) => output.OutputKey === 'OperatorApiUrl')?.OutputValue;
    if (!url) {
      throw new ConsoleSetupError(
        `${stackName} (${region}) has no output OperatorApiUrl: deploy the stage with the operator API, or pass --url`,
      );
    }
    return url;
  } catch (error) {
    if (error instanceof ConsoleSetupError) throw error;
    throw new ConsoleSetupError(
      `Could not read ${stackName} in ${region}: ${(error as Error).message} (check the stage, -c region=..., and your AWS credentials)`,
    );
  } finally {
    client.destroy();
  }
}
