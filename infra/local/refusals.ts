/**
 * The local stack's own refusals, in the APIs' failed envelope (`{ success: false, status: 'failed',
 * type, msg, requestId }`): what its gateways and the local scheduler answer before any handler or
 * control runs.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { errorTypes } from '#shared/provider/interface/errors';

export interface Refusal {
  status: number;
  type: string;
  msg: string;
  details?: string[];
}

/**
 * A local control's body: none is `{}`; one must be `Content-Type: application/json` (else 415) and
 * parse (else 400, as the APIs answer a body that is not JSON).
 */
export function localBody(
  request: IncomingMessage,
  chunks: Buffer[],
): { value: unknown } | { refusal: Refusal } {
  const text = Buffer.concat(chunks).toString('utf8');
  if (!text) return { value: {} };
  const mediaType = (request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
  if (mediaType !== 'application/json') {
    return {
      refusal: {
        status: 415,
        type: 'UNSUPPORTED_MEDIA_TYPE',
        msg: 'Local controls take a body only as Content-Type: application/json',
      },
    };
  }
  try {
    return { value: JSON.parse(text) };
  } catch {
    return {
      refusal: {
        status: 400,
        type: 'BAD_REQUEST',
        msg: errorTypes.BAD_REQUEST.msg,
        details: ['body is not valid JSON'],
      },
    };
  }
}

export function writeEnvelope(
  response: ServerResponse,
  status: number,
  type: string,
  msg: string,
  requestId: string,
  details?: string[],
) {
  if (response.headersSent) {
    response.end();
    return;
  }
  response.writeHead(status, { 'content-type': 'application/json', 'x-request-id': requestId });
  response.end(
    JSON.stringify({
      success: false,
      status: 'failed',
      type,
      msg,
      ...(details ? { details } : {}),
      requestId,
    }),
  );
}
