/**
 * `npm run openapi -- <api> [server URL]`: prints an API's OpenAPI 3.1 document (deposits, sandbox, operator),
 * as the local stack serves it at `/openapi.json`, for code generators and API gateways elsewhere.
 */
import { contracts } from '#shared/contracts/contracts';
import { openApiDocument } from '#shared/contracts/openapi';

const [name = '', serverUrl] = process.argv.slice(2);
const contract = contracts[name];
if (!contract) {
  process.stderr.write(`Usage: npm run openapi -- <${Object.keys(contracts).join('|')}> [server URL]\n`);
  process.exit(1);
}
process.stdout.write(`${JSON.stringify(openApiDocument(contract, serverUrl), null, 2)}\n`);
