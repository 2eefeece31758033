import { ListRequest } from '#shared/contracts/operator-schemas';
import { operatorRoute } from '#shared/middleware/operator-route';
import { listByStatus } from '#shared/operator/read';
import { handlerContext } from '#shared/wiring/handler-context';

const context = await handlerContext('operator-list');

export const handler = operatorRoute(ListRequest, ({ body }) => listByStatus(body, context));
