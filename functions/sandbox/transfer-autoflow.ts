import { AutoflowTransferRequest } from '#shared/provider/interface/schemas';
import { createAutoflowTransfer } from '#shared/sandbox/operations/transfers';
import { connectionRoute } from '#shared/wiring/sandbox';

export const handler = connectionRoute(AutoflowTransferRequest, createAutoflowTransfer);
