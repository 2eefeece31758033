/**
 * What the reach files share: the handler of each route, by its path under the deposits, sources or
 * operator API.
 */
import { expect } from 'vitest';
import { depositsApi, operatorApi } from '#shared/topology';

export const route = (api: typeof depositsApi, path: string) =>
  api.routes.find((candidate) => candidate.path === path)?.handler ?? expect.fail(`no route ${path}`);
export const deposits = (path: string) => route(depositsApi, `/v1/deposits/${path}`);
export const sources = (path: string) => route(depositsApi, `/v1/sources/${path}`);
export const operator = (path: string) => route(operatorApi, `/v1/ops/${path}`);
