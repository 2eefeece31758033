import { createTransfer } from '#shared/sandbox/operations/transfers';
import { TransferRequest } from '#shared/spec/schemas';
import { connectionRoute } from '#shared/wiring/sandbox';

export const handler = connectionRoute(TransferRequest, createTransfer);
