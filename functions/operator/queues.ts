import { QueuesRequest } from '#shared/contracts/operator-schemas';
import { operatorRoute } from '#shared/middleware/operator-route';
import { readQueues } from '#shared/operator/read';
import { queueDepths } from '#shared/wiring/messaging';

const context = { queues: queueDepths() };

export const handler = operatorRoute(QueuesRequest, () => readQueues(context));
