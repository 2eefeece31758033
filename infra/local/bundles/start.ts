/**
 * The local stack's bundle mode (`startLocalStack({ handlers: 'bundles' })`, `LOCAL_HANDLERS=bundles
 * npm start`): the bundles `cdk synth` builds (`build.ts`), each function in processes of its own
 * (`processes.ts`) with the environment its template gives it (`environment.ts`), and the local
 * Secrets Manager they read their secrets from at cold start (`secrets-manager.ts`).
 */
import type { HandlerLoader } from '../handlers.ts';
import { buildBundles } from './build.ts';
import { bundleContext, functionEnvironment } from './environment.ts';
import { bundleProcesses } from './processes.ts';
import { startLocalSecretsManager } from './secrets-manager.ts';

export interface LocalBundles {
  loader: HandlerLoader;
  /** Each function's processes started so far (its cold starts), by handler. */
  started(): Record<string, number>;
  stop(): Promise<void>;
}

/** `env`: the stack's process environment, its settings set (read again as each process starts). */
export async function startBundles(
  env: NodeJS.ProcessEnv,
  progress: (message: string) => void,
): Promise<LocalBundles> {
  const functions = await buildBundles(bundleContext(env), progress);
  const secrets = await startLocalSecretsManager(env);
  const processes = bundleProcesses(functions, (fn) =>
    functionEnvironment(fn, env, { secretsManagerEndpoint: secrets.endpoint }),
  );
  return {
    loader: processes.loader,
    started: processes.started,
    async stop() {
      await processes.stop();
      await secrets.stop();
    },
  };
}
