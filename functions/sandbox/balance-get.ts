import { getCardBalance } from '#shared/sandbox/operations/card-balance';
import { BalanceRequest } from '#shared/spec/schemas';
import { connectionRoute } from '#shared/wiring/sandbox';

export const handler = connectionRoute(BalanceRequest, getCardBalance);
