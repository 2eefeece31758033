/**
 * Loads function bundles the way Lambda does (import the ES module, call `handler`), one after the
 * other in this process, each with its own environment. Secrets Manager is a stand-in on a local
 * port. Reads `[{ file, handler, environment, invoke }]` on stdin; writes results to the file named
 * by the first argument (stdout carries the functions' own logs).
 */
import { writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { startSecretsStandIn } from '../support/secrets-stand-in.mjs';

const secrets = await startSecretsStandIn();

const input = JSON.parse(
  await new Promise((resolve) => {
    let text = '';
    process.stdin
      .on('data', (chunk) => {
        text += chunk;
      })
      .on('end', () => resolve(text));
  }),
);

const base = { ...process.env };
const results = [];
for (const bundle of input) {
  for (const name of Object.keys(process.env)) if (!(name in base)) delete process.env[name];
  Object.assign(process.env, bundle.environment, {
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'test',
    AWS_SECRET_ACCESS_KEY: 'test',
    AWS_ENDPOINT_URL_SECRETS_MANAGER: secrets.url,
    AWS_LAMBDA_FUNCTION_NAME: bundle.handler,
  });
  const before = secrets.reads();
  // A query per load: the same bundle loaded with another environment is another cold start.
  const module = await import(`${pathToFileURL(bundle.file).href}?load=${results.length}`);
  const result = {
    handler: bundle.handler,
    exported: typeof module.handler,
    secretsRead: secrets.reads() - before,
  };
  if (bundle.invoke) {
    const answer = await module.handler(healthEvent(), context(bundle.handler));
    result.statusCode = answer.statusCode;
  }
  results.push(result);
}
secrets.close();
writeFileSync(process.argv[2], JSON.stringify(results));

function healthEvent() {
  return {
    version: '2.0',
    routeKey: 'GET /health',
    rawPath: '/health',
    rawQueryString: '',
    headers: {},
    isBase64Encoded: false,
    requestContext: {
      accountId: '123456789012',
      apiId: 'api',
      domainName: 'api.example.com',
      domainPrefix: 'api',
      http: {
        method: 'GET',
        path: '/health',
        protocol: 'HTTP/1.1',
        sourceIp: '127.0.0.1',
        userAgent: 'test',
      },
      requestId: 'request',
      routeKey: 'GET /health',
      stage: '$default',
      time: new Date().toISOString(),
      timeEpoch: Date.now(),
    },
  };
}

function context(functionName) {
  return {
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:us-east-1:123456789012:function:${functionName}`,
    memoryLimitInMB: '512',
    awsRequestId: 'request',
    logGroupName: 'logs',
    logStreamName: 'stream',
    callbackWaitsForEmptyEventLoop: true,
    getRemainingTimeInMillis: () => 30_000,
    done() {},
    fail() {},
    succeed() {},
  };
}
