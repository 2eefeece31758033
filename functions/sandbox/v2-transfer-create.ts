import { v2CreateTransfer } from '#shared/sandbox/dialect-v2/operations';
import { V2TransferRequest } from '#shared/sandbox/dialect-v2/requests';
import { connectionRoute } from '#shared/wiring/sandbox';

export const handler = connectionRoute(V2TransferRequest, v2CreateTransfer);
