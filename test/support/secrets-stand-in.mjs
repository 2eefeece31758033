/**
 * A stand-in for Secrets Manager on a local port, for scripts that load function bundles as Lambda
 * does (their secrets are read at cold start): every GetSecretValue answers a 48-character secret.
 * `reads()` counts the requests; `close()` stops it.
 */
import { createServer } from 'node:http';

export async function startSecretsStandIn() {
  let reads = 0;
  const server = createServer((request, response) => {
    reads += 1;
    request.resume();
    request.on('end', () => {
      response.writeHead(200, { 'content-type': 'application/x-amz-json-1.1' });
      response.end(
        JSON.stringify({ ARN: 'arn', Name: 'secret', VersionId: 'v1', SecretString: 'A'.repeat(48) }),
      );
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    reads: () => reads,
    close: () => server.close(),
  };
}
