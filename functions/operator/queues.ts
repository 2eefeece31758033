import { readQueues } from '#shared/operator/read';
import { operatorRoute } from '#shared/operator/routes';
import { QueuesRequest } from '#shared/operator/schemas';
import { queueDepths } from '#shared/wiring/messaging';

const context = { queues: queueDepths() };

export const handler = operatorRoute(QueuesRequest, () => readQueues(context));
