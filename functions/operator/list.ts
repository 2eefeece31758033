import { systemClock } from '#shared/clock';
import { ListRequest } from '#shared/contracts/operator-schemas';
import { operatorRoute } from '#shared/middleware/operator-route';
import { listByStatus, type StatusListContext } from '#shared/operator/read';
import { tableEntities } from '#shared/wiring/table';

const context: StatusListContext = { byStatus: tableEntities.byStatus(), clock: systemClock };

export const handler = operatorRoute(ListRequest, ({ body }) => listByStatus(body, context));
