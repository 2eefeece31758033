/** `npm start`: the whole service on this machine. Ctrl-C stops it. */
import { sandboxBanks } from '#shared/sandbox/catalog';
import { startLocalStack } from './stack.ts';

const stack = await startLocalStack({
  depositsPort: Number(process.env.PORT ?? 3000),
  host: process.env.HOST ?? '127.0.0.1',
  sandboxPort: Number(process.env.SANDBOX_PORT ?? 3001),
});
const appSecret = process.env.SANDBOX_APP_SECRET ?? 'sandbox-local-app-secret';
const url = stack.sandboxUrl;

process.stdout.write(`
Bank Data and Payments Service: local stack is up

  Deposits API       ${stack.depositsUrl}   POST /v1/deposits/create, /v1/deposits/get
  Provider sandbox   ${url}
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

let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    void stack.stop().then(() => process.exit(0));
  });
}
