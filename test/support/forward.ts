/**
 * What the tests' proxies do with a request once they have looked at it: send it on to `target`
 * (naming the target's own host: the local stacks answer no other) and its answer back. With `body`,
 * the request's body the proxy read already; else the request is streamed on.
 */
import { request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';

export function forward(incoming: IncomingMessage, outgoing: ServerResponse, target: URL, body?: Buffer) {
  const forwarded = httpRequest(
    {
      host: target.hostname,
      port: target.port,
      path: incoming.url,
      method: incoming.method,
      headers: { ...incoming.headers, host: target.host },
    },
    (answer) => {
      outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(outgoing);
    },
  );
  forwarded.on('error', () => outgoing.destroy());
  if (body === undefined) incoming.pipe(forwarded);
  else forwarded.end(body);
}
