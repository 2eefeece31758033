/**
 * Configuration, read once from the environment when a module first asks for it. A missing or
 * malformed variable fails at start, with the variable's name.
 */
import { z } from 'zod';

const number = (fallback: number) => z.coerce.number().int().nonnegative().default(fallback);

const SandboxEnv = z.object({
  SANDBOX_TABLE_NAME: z.string().min(1),
  /** The sandbox application's secret. The local default is documented in the README. */
  SANDBOX_APP_SECRET: z.string().min(8).default('sandbox-local-app-secret'),
  SANDBOX_ASYNC_DELAY_MS: number(1_000),
  SANDBOX_INPUT_TTL_SECONDS: number(300),
  SANDBOX_ACCESS_CODE_TTL_SECONDS: number(600),
  /** How long a `timeout` fault hangs before answering 504. */
  SANDBOX_TIMEOUT_MS: number(29_000),
});

const AwsEnv = z.object({
  /** Set locally to DynamoDB Local's URL; unset in AWS. */
  DYNAMODB_ENDPOINT: z.url().optional(),
});

function read<T extends z.ZodType>(schema: T): z.infer<T> {
  const parsed = schema.safeParse(process.env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    throw new Error(`Invalid configuration: ${problems.join('; ')}`);
  }
  return parsed.data;
}

let sandbox: z.infer<typeof SandboxEnv> | undefined;
let aws: z.infer<typeof AwsEnv> | undefined;

export function sandboxConfig() {
  sandbox ??= read(SandboxEnv);
  return sandbox;
}

export function awsConfig() {
  aws ??= read(AwsEnv);
  return aws;
}
