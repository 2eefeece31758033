/** Every API's contract, by its topology API's name: what the local stack serves and the tests check. */
import { depositsContract } from './deposits-api.ts';
import type { ApiContract } from './openapi.ts';
import { operatorContract } from './operator-api.ts';
import { sandboxContract } from './sandbox-api.ts';

export const contracts: Record<string, ApiContract> = {
  deposits: depositsContract,
  sandbox: sandboxContract,
  operator: operatorContract,
};
