import { systemClock } from '#shared/clock';
import { ListDepositsRequest } from '#shared/contracts/deposits-schemas';
import { type ListContext, listDeposits } from '#shared/deposits/requests/read';
import { ownerRoute } from '#shared/middleware/deposit-route';
import { ownerDigests } from '#shared/wiring/owner-digests';
import { tableEntities } from '#shared/wiring/table';

const context: ListContext = {
  owners: tableEntities.owners(),
  backends: tableEntities.backends(),
  clock: systemClock,
  ownerDigests: await ownerDigests(),
};

export const handler = ownerRoute(ListDepositsRequest, ({ body, caller }) =>
  listDeposits(
    { ...caller, userSecret: body.userSecret, limit: body.limit, cursor: body.cursor, status: body.status },
    context,
  ),
);
