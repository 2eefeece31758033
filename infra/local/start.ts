/**
 * `npm start`: the whole service on this machine. Ctrl-C stops it. It says what it is doing while it
 * starts; a port already in use ends it with one line naming the variable to set, and nothing left
 * running (the ports are checked before DynamoDB Local starts, and a failed start stops what it began).
 * A HOST beyond loopback is warned about first: the stack has test credentials and no real
 * authentication.
 */
import { sandboxBanks } from '#shared/sandbox/catalog';
import { PortInUseError } from './gateway.ts';
import { exposureWarning } from './host-guard.ts';
import { type LocalStack, startLocalStack } from './stack.ts';

/** The environment variable that sets each API's port. */
const portVariables: Record<string, string> = {
  sandbox: 'SANDBOX_PORT',
  deposits: 'PORT',
  operator: 'OPERATOR_PORT',
};

const host = process.env.HOST || '127.0.0.1';
const warning = exposureWarning(host);
if (warning) process.stderr.write(`\n${warning}\n\n`);

let stack: LocalStack;
try {
  stack = await startLocalStack({
    depositsPort: Number(process.env.PORT ?? 3000),
    host,
    sandboxPort: Number(process.env.SANDBOX_PORT ?? 3001),
    operatorPort: Number(process.env.OPERATOR_PORT ?? 3002),
    ...(process.env.OPERATOR_TOKEN ? { operatorToken: process.env.OPERATOR_TOKEN } : {}),
    onProgress: (message) => process.stdout.write(`${message}\n`),
  });
} catch (error) {
  if (error instanceof PortInUseError) {
    const variable = portVariables[error.api] ?? 'PORT';
    process.stderr.write(
      `Port ${error.port} (the ${error.api} API) is already in use: set ${variable} to a free port, for example ${variable}=${error.port + 100} npm start\n`,
    );
  } else {
    process.stderr.write(`The local stack did not start: ${(error as Error).message}\n`);
  }
  process.exit(1);
}
const appSecret = process.env.SANDBOX_APP_SECRET ?? 'sandbox-local-app-secret';
const url = stack.sandboxUrl;

process.stdout.write(`
Bank Data and Payments Service: local stack is up

  Deposits API       ${stack.depositsUrl}   POST /v1/deposits/create, get, list, cancel
                     reference ${stack.depositsUrl}/docs   OpenAPI ${stack.depositsUrl}/openapi.json
  Operator API       ${stack.operatorUrl}   POST /v1/ops/deposits/list, get, resolve, cancel, redrive; /v1/ops/queues
                     reference ${stack.operatorUrl}/docs   OpenAPI ${stack.operatorUrl}/openapi.json
  Operator token     ${stack.operatorToken}   (Authorization: Bearer <token>; OPERATOR_TOKEN to choose it)
  Operator console   ${stack.operatorUrl}/#token=${stack.operatorToken}
  Provider sandbox   ${url}
                     reference ${url}/docs   OpenAPI ${url}/openapi.json
  App secret         ${appSecret}   (SANDBOX_APP_SECRET)
  Sandbox banks      ${sandboxBanks.map((bank) => bank.bankId).join(', ')}
  DynamoDB Local     ${stack.dynamodbEndpoint} (in memory)
  SQS (fauxqs)       ${stack.sqsEndpoint}
  EventBridge Scheduler (local)  ${stack.schedulerEndpoint}

  Create a test user and exchange its access code for a token:
    curl -s -X POST ${url}/sandbox/users -H 'content-type: application/json' \\
      -d '{"appSecret":"${appSecret}","bankId":"SANDBOX_BENEFICIARY"}'
    curl -s -X POST ${url}/v1/auth/ExchangeToken -H 'content-type: application/json' \\
      -d '{"appSecret":"${appSecret}","connectionID":"<connectionID>","accessCode":"<accessCode>"}'

  Watch a deposit go through every step:  npm run demo

Press Ctrl-C to stop.
`);
// Said again where it is seen, under the banner.
if (warning) process.stderr.write(`\n${warning}\n`);

let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    void stack.stop().then(() => process.exit(0));
  });
}
