import { connectionRoute } from '#shared/sandbox/connection-route';
import { createTransfer } from '#shared/sandbox/operations/transfers';
import { TransferRequest } from '#shared/spec/schemas';

export const handler = connectionRoute(TransferRequest, createTransfer);
