/**
 * What the service is made of: tables, HTTP APIs and their routes, each route's handler. The CDK app
 * and the local stack both read this module, so what runs locally is what deploys.
 */

export interface TableSpec {
  /** Environment variable through which handlers receive the table's name. */
  envVar: string;
  /** Name of the table on the local stack. */
  localName: string;
  partitionKey: string;
  sortKey: string;
  timeToLiveAttribute?: string;
}

export interface RouteSpec {
  method: 'GET' | 'POST';
  path: string;
  /** Handler module, relative to the project root; it exports `handler`. */
  handler: string;
}

export interface ApiSpec {
  name: string;
  routes: RouteSpec[];
  /** Answers every method and path the routes do not. */
  defaultHandler: string;
  tables: (keyof typeof tables)[];
}

export const tables = {
  sandbox: {
    envVar: 'SANDBOX_TABLE_NAME',
    localName: 'sandbox',
    partitionKey: 'pk',
    sortKey: 'sk',
    timeToLiveAttribute: 'expiresAt',
  },
} as const satisfies Record<string, TableSpec>;

const sandboxHandler = (name: string) => `functions/sandbox/${name}.ts`;

export const sandboxApi: ApiSpec = {
  name: 'sandbox',
  tables: ['sandbox'],
  defaultHandler: sandboxHandler('not-found'),
  routes: [
    { method: 'POST', path: '/v1/auth/ExchangeToken', handler: sandboxHandler('exchange-token') },
    { method: 'POST', path: '/v1/metadata/accounts/get', handler: sandboxHandler('metadata-get') },
    { method: 'POST', path: '/v1/payment/beneficiaries/get', handler: sandboxHandler('beneficiaries-get') },
    {
      method: 'POST',
      path: '/v1/payment/beneficiaries/create',
      handler: sandboxHandler('beneficiaries-create'),
    },
    { method: 'POST', path: '/v1/payment/transfer/create', handler: sandboxHandler('transfer-create') },
    { method: 'POST', path: '/v1/payment/transfer/autoflow', handler: sandboxHandler('transfer-autoflow') },
    { method: 'POST', path: '/v2/data/balance/get', handler: sandboxHandler('balance-get') },
    { method: 'POST', path: '/v1/operation/get', handler: sandboxHandler('operation-get') },
    { method: 'GET', path: '/sandbox/banks', handler: sandboxHandler('banks-list') },
    { method: 'POST', path: '/sandbox/applications', handler: sandboxHandler('applications-create') },
    { method: 'POST', path: '/sandbox/users', handler: sandboxHandler('users-create') },
    { method: 'POST', path: '/sandbox/users/get', handler: sandboxHandler('users-get') },
    { method: 'POST', path: '/sandbox/faults', handler: sandboxHandler('faults-set') },
    { method: 'GET', path: '/health', handler: sandboxHandler('health') },
  ],
};
