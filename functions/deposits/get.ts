import { systemClock } from '#shared/clock';
import { GetDepositRequest } from '#shared/contracts/deposits-schemas';
import { type ReadContext, readDeposit } from '#shared/deposits/read';
import { depositRoute } from '#shared/middleware/deposit-route';
import { ownerDigests } from '#shared/wiring/owner-digests';
import { tableEntities } from '#shared/wiring/table';

const context: ReadContext = {
  deposits: tableEntities.deposits(),
  clock: systemClock,
  ownerDigests: await ownerDigests(),
};

export const handler = depositRoute(GetDepositRequest, ({ body, accessToken }) =>
  readDeposit({ depositId: body.operationID, accessToken, userSecret: body.userSecret }, context),
);
