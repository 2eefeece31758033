/**
 * What the local stack says it does, at INFO (the level `npm start` runs at unless
 * POWERTOOLS_LOG_LEVEL or LOG_LEVEL says otherwise):
 *   one line per API request   its route, status, time taken and request id (the id a failed
 *                              envelope carries), written by the gateway (`gateway.ts`)
 *   one line per step taken    a deposit's or a source's step and status, from → to, read from the
 *                              deposits table's stream, so whoever wrote it (a step worker here or in
 *                              its own process, the API, the sweeper, an operator) is heard
 * The operator API's calls are left out unless LOG_AUDIT=1: the console calls it every 2 s. Its
 * audit lines of the calls that succeeded follow the same setting (`operatorLogLevel`); a refused or
 * failed call is always said. In AWS, API Gateway's access log and the `DepositTransitions` metric
 * say the same.
 */

import type { LogLevel } from '@aws-lambda-powertools/logger/types';
import type { _Record as StreamRecord } from '@aws-sdk/client-dynamodb-streams';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { logger, withOwnLogger } from '#shared/logger';

const levels = ['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR', 'CRITICAL', 'SILENT'];

/**
 * Whether INFO lines are shown: POWERTOOLS_LOG_LEVEL, else LOG_LEVEL, else INFO, as Powertools reads
 * them; read at each line, since the stack sets its handlers' environment after its loggers exist.
 */
export function infoShown(env: NodeJS.ProcessEnv = process.env): boolean {
  const level = levels.indexOf((env.POWERTOOLS_LOG_LEVEL || env.LOG_LEVEL || 'INFO').toUpperCase());
  return level === -1 || level <= levels.indexOf('INFO');
}

/** LOG_AUDIT=1 (or true, yes): the operator API's calls and audit lines, which the console makes every 2 s. */
export function auditShown(env: NodeJS.ProcessEnv = process.env): boolean {
  return /^(1|true|yes)$/i.test(env.LOG_AUDIT ?? '');
}

/** The level the local operator API's handlers log at: their audit lines of successes only when asked. */
export function operatorLogLevel(env: NodeJS.ProcessEnv = process.env): LogLevel | undefined {
  return auditShown(env) ? undefined : 'WARN';
}

export interface RequestDone {
  method: string;
  path: string;
  status: number;
  requestId: string;
  startedAt: number;
  /** No route of the API took it: its default handler (`$default`) answered. */
  unrouted?: boolean;
}

/**
 * `12:00:01.123 INFO deposits POST /v1/deposits/create 202 14 ms requestId=…`: one line per request;
 * an API whose calls are audited (the operator API's) only with LOG_AUDIT=1.
 */
export function sayRequest(api: string, request: RequestDone, options: { audited?: boolean } = {}): void {
  if (!infoShown() || (options.audited && !auditShown())) return;
  const ms = Math.round(performance.now() - request.startedAt);
  const route = `${request.method} ${request.path}${request.unrouted ? ' (no route)' : ''}`;
  withOwnLogger(api, () =>
    logger.info(`${route} ${request.status} ${ms} ms`, { requestId: request.requestId }),
  );
}

/**
 * The attributes a line needs, read from the record's new image; nothing when they cannot be read
 * (the lines are a side channel: a record they cannot read is the relay's to judge, not theirs).
 */
function readable(record: StreamRecord): Record<string, unknown> | undefined {
  const image = record.dynamodb?.NewImage;
  if (!image) return undefined;
  const wanted = Object.fromEntries(
    ['sk', 'id', 'history', 'purpose'].flatMap((name) => (image[name] ? [[name, image[name]]] : [])),
  );
  try {
    return unmarshall(wanted as Parameters<typeof unmarshall>[0]);
  } catch {
    return undefined;
  }
}

interface HistoryEntry {
  step: string;
  status: string;
  note?: string;
}

/**
 * Reads the deposits table's stream records (every version of every item, as the stream poller gets
 * them) and says each step a deposit or source takes: its history entries that change its step or
 * status, each once (a record the poller hands again adds nothing).
 */
export function transitionsSayer(): (records: StreamRecord[]) => void {
  const said = new Map<string, number>();
  return (records) => {
    for (const record of records) {
      const item = readable(record);
      if (item?.sk !== 'DEPOSIT' || typeof item.id !== 'string' || !Array.isArray(item.history)) continue;
      const history = item.history as HistoryEntry[];
      const from = said.get(item.id) ?? 0;
      if (history.length <= from) continue;
      said.set(item.id, history.length);
      if (!infoShown()) continue;
      const what = item.purpose === 'source' ? 'source' : 'deposit';
      for (let at = from; at < history.length; at += 1) {
        const entry = history[at];
        const before = history[at - 1];
        if (!entry || (before && before.step === entry.step && before.status === entry.status)) continue;
        const move = `${before ? before.step : 'new'} → ${entry.step}`;
        withOwnLogger('deposits', () =>
          logger.info(`${what} ${item.id} ${move} ${entry.status}`, entry.note ? { note: entry.note } : {}),
        );
      }
    }
  };
}
