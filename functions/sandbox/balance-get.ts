import { connectionRoute } from '#shared/sandbox/connection-route';
import { getCardBalance } from '#shared/sandbox/operations/card-balance';
import { BalanceRequest } from '#shared/spec/schemas';

export const handler = connectionRoute(BalanceRequest, getCardBalance);
