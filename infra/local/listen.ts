/**
 * `npm run listen`: receives the local stack's webhooks, verifies each (Standard Webhooks) and prints
 * each event as it arrives (`webhook-listener.ts`). Start it, then `npm start` with the WEBHOOK_URL it
 * prints. LISTEN_PORT chooses its port (3003 by default); WEBHOOK_SECRET its secret, which `npm start`
 * must then be given too (without one, both take the same local secret). Ctrl-C stops it.
 */
import { localWebhook, startWebhookListener, type WebhookListener } from './webhook-listener.ts';

const port = Number(process.env.LISTEN_PORT ?? localWebhook.port);
const chosenSecret = process.env.WEBHOOK_SECRET;
const say = (line: string) => process.stdout.write(`${line}\n`);

let listener: WebhookListener;
try {
  listener = await startWebhookListener({
    host: '127.0.0.1',
    port,
    secret: chosenSecret || localWebhook.secret,
    say,
  });
} catch (error) {
  const inUse = (error as NodeJS.ErrnoException).code === 'EADDRINUSE';
  process.stderr.write(
    inUse
      ? `Port ${port} is already in use: set LISTEN_PORT to a free port, for example LISTEN_PORT=${port + 100} npm run listen\n`
      : `npm run listen did not start: ${(error as Error).message}\n`,
  );
  process.exit(1);
}

const secretEnv = chosenSecret ? ` WEBHOOK_SECRET='${chosenSecret}'` : '';
say(`
npm run listen: the local stack's webhook events, verified (Standard Webhooks), as they arrive

  Listening on   ${listener.url}
  Secret         ${chosenSecret ? 'WEBHOOK_SECRET' : 'the local one (WEBHOOK_SECRET to choose another; npm start signs with the same when it has none)'}

  Start the stack with:   WEBHOOK_URL=${listener.url}${secretEnv} npm start

Waiting for events. Ctrl-C to stop.
`);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => void listener.stop().then(() => process.exit(0)));
}
