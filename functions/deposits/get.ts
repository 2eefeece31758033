import { systemClock } from '#shared/clock';
import { GetDepositRequest } from '#shared/contracts/deposits-schemas';
import { type ReadContext, readDeposit } from '#shared/deposits/requests/read';
import { ownerRoute } from '#shared/middleware/deposit-route';
import { ownerDigests } from '#shared/wiring/owner-digests';
import { tableEntities } from '#shared/wiring/table';

const context: ReadContext = {
  deposits: tableEntities.deposits(),
  clock: systemClock,
  ownerDigests: await ownerDigests(),
};

export const handler = ownerRoute(GetDepositRequest, ({ body, caller }) =>
  readDeposit({ depositId: body.operationID, ...caller, userSecret: body.userSecret }, context),
);
