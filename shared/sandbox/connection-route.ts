/**
 * The handler of a provider operation: the body validated by its schema, then one operation on the
 * connection its bearer token and secrets name, under the request's fault (see `faults.ts`).
 */
import type { z } from 'zod';
import { parseBody } from '#shared/middleware/http';
import type { HttpAnswer } from './answer.ts';
import type { OperationContext } from './engine.ts';
import { sandboxHandler } from './routes.ts';
import { sandbox } from './runtime.ts';

type Credentials = { appSecret: string; userSecret: string };

export function connectionRoute<S extends z.ZodType<Credentials>>(
  schema: S,
  operation: (context: OperationContext, body: z.infer<S>) => Promise<HttpAnswer>,
) {
  return sandboxHandler(async (event) => {
    const body = parseBody(event, schema);
    const { appSecret, userSecret } = body;
    const request = { path: event.rawPath, headers: event.headers, appSecret, userSecret };
    return sandbox.operate(request, (context) => operation(context, body));
  });
}
