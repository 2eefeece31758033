import { systemClock } from '#shared/clock';
import { GetSourceRequest } from '#shared/contracts/deposits-schemas';
import { type ReadContext, readSource } from '#shared/deposits/read';
import { depositRoute } from '#shared/middleware/deposit-route';
import { ownerDigests } from '#shared/wiring/owner-digests';
import { tableEntities } from '#shared/wiring/table';

const context: ReadContext = {
  deposits: tableEntities.deposits(),
  clock: systemClock,
  ownerDigests: await ownerDigests(),
};

export const handler = depositRoute(GetSourceRequest, ({ body, accessToken }) =>
  readSource({ sourceId: body.sourceID, accessToken, userSecret: body.userSecret }, context),
);
