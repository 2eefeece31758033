import { systemClock } from '#shared/clock';
import { ListSourcesRequest } from '#shared/contracts/deposits-schemas';
import { type ListContext, listSources } from '#shared/deposits/requests/read';
import { ownerRoute } from '#shared/middleware/deposit-route';
import { ownerDigests } from '#shared/wiring/owner-digests';
import { tableEntities } from '#shared/wiring/table';

const context: ListContext = {
  owners: tableEntities.owners(),
  backends: tableEntities.backends(),
  clock: systemClock,
  ownerDigests: await ownerDigests(),
};

export const handler = ownerRoute(ListSourcesRequest, ({ body, caller }) =>
  listSources({ ...caller, userSecret: body.userSecret, limit: body.limit, cursor: body.cursor }, context),
);
