import { ListDepositsRequest } from '#shared/contracts/deposits-schemas';
import { listDeposits } from '#shared/deposits/requests/read';
import { ownerRoute } from '#shared/middleware/deposit-route';
import { handlerContext } from '#shared/wiring/handler-context';

const context = await handlerContext('deposits-list');

export const handler = ownerRoute(ListDepositsRequest, ({ body, caller }) =>
  listDeposits(
    { ...caller, userSecret: body.userSecret, limit: body.limit, cursor: body.cursor, status: body.status },
    context,
  ),
);
