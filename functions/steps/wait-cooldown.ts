import { StepMessage } from '#shared/deposits/model';
import { workflow } from '#shared/deposits/runtime';
import { sqsConsumer } from '#shared/middleware/sqs';

export const handler = sqsConsumer(StepMessage, (message) => workflow.handle(message));
