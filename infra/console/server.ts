/**
 * `npm run console -- -c stage=dev` (or `-- --url <operator API url>`): the operator console on this
 * machine against a deployed stage. The page is served on 127.0.0.1 (`CONSOLE_PORT`, default 3003)
 * and its calls are signed with the operator's own AWS credentials, from the SDK's default provider
 * chain (environment, AWS_PROFILE, SSO, ...). The operator needs `execute-api:Invoke` on the API.
 * Its calls take a token it makes at each start and prints in the page's link (`#token=...`), so no
 * other process or page on this machine can have its calls signed (`proxy.ts`).
 */
import { defaultProvider } from '@aws-sdk/credential-provider-node';
import { ConsoleSetupError, operatorApiUrlOf, parseArgs, regionOfApiUrl } from './locate.ts';
import { startConsoleServer } from './proxy.ts';

async function main() {
  // Lambda runs Node 22; the SDK's warning about Node 20 is noise on an operator's machine.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  const args = parseArgs(process.argv.slice(2));
  const configuredRegion =
    args.region ?? process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION ?? 'us-east-1';
  const upstreamUrl = args.url ?? (await operatorApiUrlOf(args.stage, configuredRegion));
  const region = regionOfApiUrl(upstreamUrl) ?? configuredRegion;
  const credentials = defaultProvider();
  try {
    await credentials();
  } catch (error) {
    throw new ConsoleSetupError(
      `No AWS credentials (${(error as Error).message}): set AWS_PROFILE or log in (aws sso login), then start again`,
    );
  }
  const port = Number(process.env.CONSOLE_PORT ?? 3003);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new ConsoleSetupError(`CONSOLE_PORT: ${process.env.CONSOLE_PORT} is not a port`);
  }
  const server = await startConsoleServer({ upstreamUrl, region, credentials, port }).catch((error) => {
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      throw new ConsoleSetupError(`Port ${port} is already in use: set CONSOLE_PORT to a free port`);
    }
    throw error;
  });
  process.stdout.write(
    `Operator API: ${upstreamUrl} (${region}), calls signed with your AWS credentials\n` +
      `Operator console: ${server.link}\n` +
      '(the link carries the token this server made at its start; calls without it are refused)\n' +
      'Ctrl-C stops it.\n',
  );
  const stop = () => void server.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof ConsoleSetupError ? error.message : String(error)}\n`);
  process.exit(1);
});
