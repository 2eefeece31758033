/**
 * The docs' tables that the code defines, written from it (`npm run docs:tables` puts them in their
 * pages; `test/unit/doc-tables.test.ts` fails when a page says otherwise): the entities of both
 * tables and their keys, the routes, what each function may touch, the error and failure types, and
 * the configuration variables.
 */

import { entities as depositEntities, keys as depositKeys } from '#shared/adapters/deposits-table-items';
import { entities as sandboxEntities, keys as sandboxKeys } from '#shared/adapters/sandbox-table-items';
import { configVariables } from '#shared/config';
import { failureTypes } from '#shared/deposits/model/failures';
import { depositErrorAnswers, operatorErrorAnswers } from '#shared/middleware/api-errors';
import { errorTypes } from '#shared/provider/interface/errors';
import { whenAnswered } from '#shared/sandbox/error-causes';
import {
  type ApiSpec,
  depositsApi,
  handlerFile,
  operatorApi,
  type RouteSpec,
  sandboxApi,
} from '#shared/topology';
import { functionsOf } from '../cdk/settings.ts';
import { resolveHandler } from '../stacks/operator-access.ts';
import { variableRows } from './config-variables.ts';
import { code, table } from './markdown.ts';

type Entities = Record<string, { name: string; args: string[]; access: string; ttl: string }>;
type Keys = Record<string, (...args: string[]) => { pk: string; sk: string }>;

function entityTable(entities: Entities, keys: Keys): string {
  const rows = Object.entries(entities).map(([kind, entity]) => {
    const key = keys[kind]?.(...entity.args);
    if (!key) throw new Error(`no key function for the entity ${kind}`);
    return [entity.name, code(key.pk), code(key.sk), entity.access, entity.ttl];
  });
  return table(['Entity', 'pk', 'sk', 'Access pattern', 'TTL'], rows);
}

/** Which operators' policy reaches an operator route (`infra/stacks/operator-access.ts`). */
function operatorPolicy(route: RouteSpec): string {
  if (route.handler === resolveHandler) return 'resolving operators';
  return route.acts ? 'acting operators' : 'every operator';
}

function routeTable(): string {
  const apis: ApiSpec[] = [depositsApi, operatorApi, sandboxApi];
  const rows = apis.flatMap((api) =>
    api.routes.map((route) => [
      api.name,
      code(`${route.method} ${route.path}`),
      code(handlerFile(route.handler)),
      api === operatorApi ? operatorPolicy(route) : '',
    ]),
  );
  return table(['API', 'Route', 'Handler', 'Operator policy'], rows);
}

const list = (items: readonly string[] | undefined) => (items?.length ? items.join(', ') : '');

function grantTable(): string {
  const rows = functionsOf('deposits').map((fn) => [
    code(fn.file),
    list(fn.table?.actions.map((action) => action.replace('dynamodb:', ''))),
    fn.index ? fn.index.names.map(code).join(', ') : '',
    list([...fn.sendsTo, ...(fn.sendsToDlqOf ?? []).map((key) => `${key} DLQ`)]),
    [fn.createsSchedules ? 'create' : '', fn.deletesSchedules ? 'delete' : ''].filter(Boolean).join(', '),
    fn.credentialsKey ?? '',
    list([...fn.secrets, ...(fn.readsQueueDepths ? ['queue depths'] : [])]),
  ]);
  return table(
    ['Function', 'Deposits table', 'Index', 'Sends to', 'Schedules', 'Credentials key', 'Also reads'],
    rows,
  );
}

function providerErrorTable(): string {
  const rows = Object.entries(errorTypes).map(([type, { status, msg }]) => [
    code(type),
    String(status),
    msg,
    whenAnswered[type as keyof typeof whenAnswered],
  ]);
  return table(['type', 'HTTP', 'msg', 'When'], rows);
}

function apiErrorTable(): string {
  const rows = [
    ...Object.entries(depositErrorAnswers).map(([type, { status, when }]) => [
      code(type),
      String(status),
      'both',
      when,
    ]),
    ...Object.entries(operatorErrorAnswers).map(([type, { status, when }]) => [
      code(type),
      String(status),
      'operator',
      when,
    ]),
  ];
  return table(['type', 'HTTP', 'API', 'When'], rows);
}

function failureTable(): string {
  const rows = Object.entries(failureTypes).map(([type, { message, meaning }]) => [
    code(type),
    meaning,
    message,
  ]);
  return table(['type', 'Meaning', 'What the owner hears (`msg`)'], rows);
}

/** The variables read by the local stack (`npm start`) and by Powertools itself, beside the handlers'. */
export const outsideSchemas = [
  'PORT',
  'SANDBOX_PORT',
  'HOST',
  'OPERATOR_PORT',
  'OPERATOR_TOKEN',
  'SECOND_OPERATOR_TOKEN',
  'POWERTOOLS_LOG_LEVEL',
  'LOG_FORMAT',
  'LISTEN_PORT',
  'LOG_AUDIT',
  'JDK_JAVA_OPTIONS',
  'DDB_LOCAL_TELEMETRY',
];

function variableTable(): string {
  const known = new Map(configVariables().map((variable) => [variable.name, variable]));
  const documented = variableRows.flatMap((row) => row.variables);
  const missing = [...known.keys()].filter((name) => !documented.includes(name));
  const unknown = documented.filter((name) => !known.has(name) && !outsideSchemas.includes(name));
  if (missing.length || unknown.length)
    throw new Error(`configuration rows: missing ${missing.join(', ')}; unknown ${unknown.join(', ')}`);
  const rows = variableRows.map((row) => {
    const fallbacks = row.variables.map((name) => known.get(name)?.fallback);
    const given = fallbacks.every((fallback) => fallback !== undefined);
    if (given && row.default !== undefined)
      throw new Error(`${row.variables.join(', ')}: the code gives the default, the row must not`);
    if (!given && row.default === undefined)
      throw new Error(`${row.variables.join(', ')}: no default in the code, the row must say what stands in`);
    const fallback = given
      ? fallbacks
          .map((value) => code(typeof value === 'object' ? JSON.stringify(value) : String(value)))
          .join(', ')
      : (row.default ?? '');
    return [row.variables.map(code).join(', '), fallback, row.meaning];
  });
  return table(['Variable', 'Default', 'Meaning'], rows);
}

/** Every generated table, by the name its page's markers give it. */
export function docTables(): Record<string, string> {
  return {
    'deposits-entities': entityTable(depositEntities, depositKeys as unknown as Keys),
    'sandbox-entities': entityTable(sandboxEntities, sandboxKeys as unknown as Keys),
    routes: routeTable(),
    'function-grants': grantTable(),
    'provider-errors': providerErrorTable(),
    'api-errors': apiErrorTable(),
    'failure-types': failureTable(),
    'config-variables': variableTable(),
  };
}
