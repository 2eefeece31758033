import { systemClock } from '#shared/clock';
import { operatorRoute } from '#shared/middleware/operator-route';
import { getDeposit, type OperatorReadContext } from '#shared/operator/read';
import { GetRequest } from '#shared/operator/schemas';
import { tableEntities } from '#shared/wiring/table';

const context: OperatorReadContext = { deposits: tableEntities.deposits(), clock: systemClock };

export const handler = operatorRoute(GetRequest, ({ body }) =>
  getDeposit({ depositId: body.operationID }, context),
);
