// The operator API, called from the page: same-origin POSTs to /v1/ops/..., JSON both ways.
// The token of the page's link rides as a bearer token: locally the operator token; behind
// `npm run console` the token that server made at its start, which it checks and drops before it
// signs each call with the operator's AWS credentials. An answer that gives the service's time
// (`now`) sets the page's clock (`clock.js`).
import { adoptServiceNow } from './clock.js';

const tokenKey = 'operatorToken';

/**
 * Takes the token from the address bar's fragment (`#token=...`) into this tab's session storage,
 * and removes it from the address bar (and so from the history and any copied link).
 */
export function adoptToken() {
  const fragment = new URLSearchParams(window.location.hash.slice(1));
  const token = fragment.get('token');
  if (token) {
    sessionStorage.setItem(tokenKey, token);
    fragment.delete('token');
    const rest = fragment.toString();
    window.history.replaceState(
      null,
      '',
      `${window.location.pathname}${window.location.search}${rest ? `#${rest}` : ''}`,
    );
  }
  return sessionStorage.getItem(tokenKey) ?? undefined;
}

/** An answer of the operator API that is not a success: the failed envelope, or what came instead. */
export class OpsError extends Error {
  /**
   * @param {number} httpStatus
   * @param {string} type
   * @param {string} msg
   * @param {string} [requestId]
   */
  constructor(httpStatus, type, msg, requestId) {
    super(`${type}: ${msg}`);
    this.name = 'OpsError';
    this.httpStatus = httpStatus;
    this.type = type;
    this.msg = msg;
    this.requestId = requestId;
  }
}

/**
 * POST `/v1/ops/<path>` with `body`; the answer's JSON, or an OpsError.
 * @param {string} path
 * @param {Record<string, unknown>} body
 */
export async function ops(path, body = {}) {
  const token = sessionStorage.getItem(tokenKey);
  const sentAt = Date.now();
  let response;
  try {
    response = await fetch(`/v1/ops/${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify(body),
    });
  } catch (error) {
    throw new OpsError(0, 'NETWORK_ERROR', `The console's server did not answer: ${String(error)}`);
  }
  const text = await response.text();
  let json;
  try {
    json = JSON.parse(text);
  } catch {
    throw new OpsError(response.status, `HTTP_${response.status}`, text.slice(0, 300) || 'an empty answer');
  }
  if (response.ok) {
    if (typeof json?.now === 'string') adoptServiceNow(json.now, sentAt, Date.now());
    return json;
  }
  if (json && typeof json.type === 'string') {
    throw new OpsError(response.status, json.type, String(json.msg ?? ''), json.requestId);
  }
  // API Gateway's own refusals (IAM) answer `{ message }` without our envelope.
  throw new OpsError(response.status, `HTTP_${response.status}`, String(json?.message ?? text.slice(0, 300)));
}

export const operatorApi = {
  list: (query) => ops('deposits/list', query),
  get: (operationID) => ops('deposits/get', { operationID }),
  resolve: (request) => ops('deposits/resolve', request),
  cancel: (operationID, reason) => ops('deposits/cancel', { operationID, reason }),
  redrive: (operationID) => ops('deposits/redrive', { operationID }),
  deliveries: (operationID) => ops('deposits/deliveries', { operationID }),
  resend: (operationID, eventId) => ops('deposits/resend', { operationID, eventId }),
  stats: (filters) => ops('deposits/stats', filters),
  queues: () => ops('queues', {}),
};
