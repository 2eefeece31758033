import { QueuesRequest } from '#shared/contracts/operator-schemas';
import { operatorRoute } from '#shared/middleware/operator-route';
import { readQueues } from '#shared/operator/read';
import { handlerContext } from '#shared/wiring/handler-context';

const context = await handlerContext('operator-queues');

export const handler = operatorRoute(QueuesRequest, () => readQueues(context));
