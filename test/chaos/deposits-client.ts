/** The chaos harness's calls to the deposits API, as a wallet backend makes them: create, then read. */
import type { LocalStack } from '#infra/local/stack';
import { auth, send } from './http.ts';
import type { Connection } from './sandbox-client.ts';

export interface DepositRequest {
  amount: number;
  walletAccountID: string;
  userInputs?: { id: string; index: number; query: string; answer: string }[];
}

export function depositsClient(stack: LocalStack, appSecret: string) {
  return {
    createDeposit(connection: Connection, idempotencyKey: string, request: DepositRequest) {
      return send(
        'POST',
        `${stack.depositsUrl}/v1/deposits/create`,
        { appSecret, userSecret: connection.userSecret, senderID: connection.accountId, ...request },
        { ...auth(connection), 'idempotency-key': idempotencyKey },
      );
    },

    readDeposit(connection: Connection, operationID: string) {
      return send(
        'POST',
        `${stack.depositsUrl}/v1/deposits/get`,
        { appSecret, userSecret: connection.userSecret, operationID },
        auth(connection),
      );
    },
  };
}
