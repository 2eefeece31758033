import { BalanceByRequest, getBalance } from '#shared/sandbox/operations/account-balance';
import { connectionRoute } from '#shared/wiring/sandbox';

export const handler = connectionRoute(BalanceByRequest, getBalance);
