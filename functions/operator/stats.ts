import { systemClock } from '#shared/clock';
import { StatsRequest } from '#shared/contracts/operator-schemas';
import { operatorRoute } from '#shared/middleware/operator-route';
import { depositStats, type StatsContext } from '#shared/operator/stats';
import { tableEntities } from '#shared/wiring/table';

const byStatus = tableEntities.byStatus();
const context: StatsContext = { times: byStatus, byStatus, clock: systemClock };

export const handler = operatorRoute(StatsRequest, ({ body }) => depositStats(body, context));
