import { systemClock } from '#shared/clock';
import { GetSourceRequest } from '#shared/contracts/deposits-schemas';
import { type ReadContext, readSource } from '#shared/deposits/requests/read';
import { ownerRoute } from '#shared/middleware/deposit-route';
import { ownerDigests } from '#shared/wiring/owner-digests';
import { tableEntities } from '#shared/wiring/table';

const context: ReadContext = {
  deposits: tableEntities.deposits(),
  clock: systemClock,
  ownerDigests: await ownerDigests(),
};

export const handler = ownerRoute(GetSourceRequest, ({ body, caller }) =>
  readSource({ sourceId: body.sourceID, ...caller, userSecret: body.userSecret }, context),
);
