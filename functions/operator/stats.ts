import { StatsRequest } from '#shared/contracts/operator-schemas';
import { operatorRoute } from '#shared/middleware/operator-route';
import { depositStats } from '#shared/operator/stats';
import { handlerContext } from '#shared/wiring/handler-context';

const context = await handlerContext('operator-stats');

export const handler = operatorRoute(StatsRequest, ({ body }) => depositStats(body, context));
