import { BalanceRequest } from '#shared/provider/interface/schemas';
import { getCardBalance } from '#shared/sandbox/operations/card-balance';
import { connectionRoute } from '#shared/wiring/sandbox';

export const handler = connectionRoute(BalanceRequest, getCardBalance);
