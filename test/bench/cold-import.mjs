/**
 * One cold start's import, in this fresh Node process: sets the function's environment (Secrets
 * Manager is a stand-in on a local port, `test/support/secrets-stand-in.mjs`), imports the bundle as
 * Lambda does, and prints `{"importMs": ...}`: the time from the import's start until the module and
 * its top-level awaits (secrets read at cold start) are done. Arguments: the bundle, its environment
 * as JSON.
 */
import { pathToFileURL } from 'node:url';
import { startSecretsStandIn } from '../support/secrets-stand-in.mjs';

const [file, environment] = process.argv.slice(2);
const secrets = await startSecretsStandIn();
Object.assign(process.env, JSON.parse(environment), {
  AWS_REGION: 'us-east-1',
  AWS_ACCESS_KEY_ID: 'test',
  AWS_SECRET_ACCESS_KEY: 'test',
  AWS_ENDPOINT_URL_SECRETS_MANAGER: secrets.url,
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
});
const started = performance.now();
const module = await import(pathToFileURL(file).href);
const importMs = performance.now() - started;
secrets.close();
process.stdout.write(`${JSON.stringify({ importMs, exported: typeof module.handler })}\n`);
process.exit(0);
