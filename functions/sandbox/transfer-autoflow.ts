import { connectionRoute } from '#shared/sandbox/connection-route';
import { createAutoflowTransfer } from '#shared/sandbox/operations/transfers';
import { AutoflowTransferRequest } from '#shared/spec/schemas';

export const handler = connectionRoute(AutoflowTransferRequest, createAutoflowTransfer);
