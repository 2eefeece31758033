import { systemClock } from '#shared/clock';
import { GetRequest } from '#shared/contracts/operator-schemas';
import { operatorRoute } from '#shared/middleware/operator-route';
import { getDeposit, type OperatorReadContext } from '#shared/operator/read';
import { tableEntities } from '#shared/wiring/table';

const context: OperatorReadContext = { deposits: tableEntities.deposits(), clock: systemClock };

export const handler = operatorRoute(GetRequest, ({ body }) =>
  getDeposit({ depositId: body.operationID }, context),
);
