/**
 * `npm start`: the whole service on this machine. Ctrl-C stops it. It says what it is doing while it
 * starts; a port already in use ends it with one line naming the variable to set, and nothing left
 * running (the ports are checked before DynamoDB Local starts, and a failed start stops what it began).
 * A HOST beyond loopback is warned about first: the stack has test credentials and no real
 * authentication. It says where the webhook events go (WEBHOOK_URL, signed with WEBHOOK_SECRET or,
 * without one, the local secret `npm run listen` verifies with), or that none is set and how to see
 * them. Then, at INFO, one line per API request and per step a deposit takes (`activity.ts`).
 */
import './xray-manual-mode.ts';

import { sandboxBanks } from '#shared/sandbox/catalog';
import { auditShown } from './activity.ts';
import { PortInUseError } from './gateway.ts';
import { exposureWarning } from './host-guard.ts';
import { type LocalStack, startLocalStack } from './stack.ts';
import { localWebhook } from './webhook-listener.ts';

/** The environment variable that sets each API's port. */
const portVariables: Record<string, string> = {
  sandbox: 'SANDBOX_PORT',
  deposits: 'PORT',
  operator: 'OPERATOR_PORT',
};

const host = process.env.HOST || '127.0.0.1';
// A webhook without a secret of its own is signed with the one `npm run listen` verifies with by default.
const webhookUrl = process.env.WEBHOOK_URL || undefined;
if (!webhookUrl) delete process.env.WEBHOOK_URL;
else if (!process.env.WEBHOOK_SECRET) process.env.WEBHOOK_SECRET = localWebhook.secret;
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
    ...(process.env.SECOND_OPERATOR_TOKEN ? { secondOperatorToken: process.env.SECOND_OPERATOR_TOKEN } : {}),
    onProgress: (message) => process.stdout.write(`${message}\n`),
    // `npm run start:bundles`: each function from the bundle `cdk synth` builds (docs/deploying.md).
    ...(process.argv.includes('--bundles') ? { handlers: 'bundles' as const } : {}),
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
const listenUrl = `http://127.0.0.1:${localWebhook.port}`;
const webhooks = webhookUrl
  ? `deposit events go to ${webhookUrl} (WEBHOOK_URL), signed with ${process.env.WEBHOOK_SECRET === localWebhook.secret ? "the local secret (npm run listen's)" : 'WEBHOOK_SECRET'}`
  : `none: WEBHOOK_URL is not set, so no events are sent. To watch them arrive, run
                     npm run listen in another terminal, then WEBHOOK_URL=${listenUrl} npm start`;
/** The demo finds this stack by the same variables (`demo.ts`): named when not the defaults. */
const portOf = (address: string) => new URL(address).port;
const demoEnv = [
  portOf(stack.depositsUrl) === '3000' ? '' : `PORT=${portOf(stack.depositsUrl)} `,
  portOf(url) === '3001' ? '' : `SANDBOX_PORT=${portOf(url)} `,
].join('');

process.stdout.write(`
Bank Data and Payments Service: local stack is up

  Deposits API       ${stack.depositsUrl}   POST /v1/deposits/create, get, list, cancel
                     reference ${stack.depositsUrl}/docs   OpenAPI ${stack.depositsUrl}/openapi.json
  Operator API       ${stack.operatorUrl}   POST /v1/ops/deposits/list, get, resolve, cancel, redrive; /v1/ops/queues
                     reference ${stack.operatorUrl}/docs   OpenAPI ${stack.operatorUrl}/openapi.json
  Operator token     ${stack.operatorToken}   (Authorization: Bearer <token>; OPERATOR_TOKEN to choose it)
  Operator console   ${stack.operatorUrl}/#token=${stack.operatorToken}
  Second operator    ${stack.secondOperatorToken}   (identity local-operator-2, to approve a resolution to done
                     above RESOLVE_APPROVAL_ABOVE; SECOND_OPERATOR_TOKEN to choose it)
                     console ${stack.operatorUrl}/#token=${stack.secondOperatorToken}
  Provider sandbox   ${url}
                     reference ${url}/docs   OpenAPI ${url}/openapi.json
  App secret         ${appSecret}   (SANDBOX_APP_SECRET)
  Sandbox banks      ${sandboxBanks.map((bank) => bank.bankId).join(', ')}
  DynamoDB Local     ${stack.dynamodbEndpoint} (in memory)
  SQS (fauxqs)       ${stack.sqsEndpoint}
  EventBridge Scheduler (local)  ${stack.schedulerEndpoint}
  Webhooks           ${webhooks}
  Logs               one line per API request and per step a deposit takes (POWERTOOLS_LOG_LEVEL=WARN
                     for fewer); the operator API's calls ${auditShown() ? 'too (LOG_AUDIT)' : 'with LOG_AUDIT=1'}

  Create a test user and exchange its access code for a token:
    curl -s -X POST ${url}/sandbox/users -H 'content-type: application/json' \\
      -d '{"appSecret":"${appSecret}","bankId":"SANDBOX_BENEFICIARY"}'
    curl -s -X POST ${url}/v1/auth/ExchangeToken -H 'content-type: application/json' \\
      -d '{"appSecret":"${appSecret}","connectionID":"<connectionID>","accessCode":"<accessCode>"}'

  Watch a deposit go through every step:  ${demoEnv}npm run demo

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
