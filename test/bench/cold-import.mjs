/**
 * One cold start's import, in this fresh Node process: sets the function's environment (Secrets
 * Manager is a stand-in on a local port, as in test/infra/load-bundles.mjs), imports the bundle as
 * Lambda does, and prints `{"importMs": ...}`: the time from the import's start until the module and
 * its top-level awaits (secrets read at cold start) are done. Arguments: the bundle, its environment
 * as JSON.
 */
import { createServer } from 'node:http';
import { pathToFileURL } from 'node:url';

const [file, environment] = process.argv.slice(2);
const secrets = createServer((request, response) => {
  request.resume();
  request.on('end', () => {
    response.writeHead(200, { 'content-type': 'application/x-amz-json-1.1' });
    response.end(
      JSON.stringify({ ARN: 'arn', Name: 'secret', VersionId: 'v1', SecretString: 'A'.repeat(48) }),
    );
  });
});
await new Promise((resolve) => secrets.listen(0, '127.0.0.1', resolve));
Object.assign(process.env, JSON.parse(environment), {
  AWS_REGION: 'us-east-1',
  AWS_ACCESS_KEY_ID: 'test',
  AWS_SECRET_ACCESS_KEY: 'test',
  AWS_ENDPOINT_URL_SECRETS_MANAGER: `http://127.0.0.1:${secrets.address().port}`,
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
});
const started = performance.now();
const module = await import(pathToFileURL(file).href);
const importMs = performance.now() - started;
secrets.close();
process.stdout.write(`${JSON.stringify({ importMs, exported: typeof module.handler })}\n`);
process.exit(0);
