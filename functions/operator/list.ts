import { systemClock } from '#shared/clock';
import { operatorRoute } from '#shared/middleware/operator-route';
import { listByStatus, type StatusListContext } from '#shared/operator/read';
import { ListRequest } from '#shared/operator/schemas';
import { tableEntities } from '#shared/wiring/table';

const context: StatusListContext = { byStatus: tableEntities.byStatus(), clock: systemClock };

export const handler = operatorRoute(ListRequest, ({ body }) => listByStatus(body, context));
