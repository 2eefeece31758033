import { TransferRequest } from '#shared/provider/interface/schemas';
import { createTransfer } from '#shared/sandbox/operations/transfers';
import { connectionRoute } from '#shared/wiring/sandbox';

export const handler = connectionRoute(TransferRequest, createTransfer);
