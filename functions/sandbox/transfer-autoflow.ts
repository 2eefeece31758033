import { createAutoflowTransfer } from '#shared/sandbox/operations/transfers';
import { AutoflowTransferRequest } from '#shared/spec/schemas';
import { connectionRoute } from '#shared/wiring/sandbox';

export const handler = connectionRoute(AutoflowTransferRequest, createAutoflowTransfer);
