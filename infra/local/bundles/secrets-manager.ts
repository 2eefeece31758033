/**
 * Secrets Manager for the bundles on the local stack: `GetSecretValue` (the one call the functions
 * make, at cold start) answered from the local stack's values, by the local ARN each function is
 * given (`environment.ts`). A version stage with no value (`AWSPREVIOUS` when the stack signs with one
 * webhook secret) is ResourceNotFoundException, as Secrets Manager answers it. On 127.0.0.1 only.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { localSecretArn, secretValues } from './environment.ts';

export interface LocalSecretsManager {
  endpoint: string;
  /** GetSecretValue calls answered so far, by secret ARN. */
  reads(): Record<string, number>;
  stop(): Promise<void>;
}

export async function startLocalSecretsManager(env: NodeJS.ProcessEnv): Promise<LocalSecretsManager> {
  const stages = new Map(
    Object.entries(secretValues).map(([variable, names]) => [
      localSecretArn(variable),
      {
        AWSCURRENT: env[names.current] ?? names.fallback,
        AWSPREVIOUS: names.previous ? env[names.previous] : undefined,
      },
    ]),
  );
  const reads: Record<string, number> = {};
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const answer = (status: number, body: unknown) => {
        response.writeHead(status, { 'content-type': 'application/x-amz-json-1.1' });
        response.end(JSON.stringify(body));
      };
      const target = String(request.headers['x-amz-target'] ?? '');
      if (target !== 'secretsmanager.GetSecretValue')
        return answer(400, { __type: 'InvalidRequestException', message: `not served locally: ${target}` });
      const { SecretId = '', VersionStage = 'AWSCURRENT' } = JSON.parse(
        Buffer.concat(chunks).toString() || '{}',
      ) as {
        SecretId?: string;
        VersionStage?: 'AWSCURRENT' | 'AWSPREVIOUS';
      };
      reads[SecretId] = (reads[SecretId] ?? 0) + 1;
      const value = stages.get(SecretId)?.[VersionStage];
      if (value === undefined)
        return answer(400, {
          __type: 'ResourceNotFoundException',
          message: `Secrets Manager can't find the specified secret value for staging label: ${VersionStage}`,
        });
      return answer(200, {
        ARN: SecretId,
        Name: SecretId.split(':').at(-1),
        VersionId: VersionStage === 'AWSCURRENT' ? 'local-current' : 'local-previous',
        VersionStages: [VersionStage],
        SecretString: value,
        CreatedDate: Math.floor(Date.now() / 1000),
      });
    });
  });
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    reads: () => ({ ...reads }),
    stop: () =>
      new Promise((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}
