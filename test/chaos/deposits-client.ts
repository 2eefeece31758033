/**
 * The chaos harness's calls to the deposits API, as a wallet backend makes them: create, then read
 * (a deposit, or a payment source), or cancel,
 * through the typed client (`shared/deposits-api/client.ts`). The harness repeats an unanswered
 * create itself (and counts it), so the client's own retries are off; answers and refusals alike
 * come back as a Reply, and no answer throws, as before.
 */
import type { LocalStack } from '#infra/local/stack';
import { DepositsApiError, DepositsClient } from '#shared/deposits-api/client';
import type { Reply } from './http.ts';
import type { Connection } from './sandbox-client.ts';

export interface DepositRequest {
  amount: number;
  walletAccountID: string;
  userInputs?: { id: string; index: number; query: string; answer: string }[];
}

async function reply(call: () => Promise<{ status: number; body: unknown }>): Promise<Reply> {
  try {
    const { status, body } = await call();
    return { status, body: body as Reply['body'] };
  } catch (error) {
    if (error instanceof DepositsApiError) return { status: error.httpStatus, body: error.body };
    throw error;
  }
}

export function depositsClient(stack: LocalStack, appSecret: string) {
  const client = new DepositsClient({ baseUrl: stack.depositsUrl, retries: 0, timeoutMs: 60_000 });
  const as = (connection: Connection) => ({
    accessToken: connection.accessToken,
    appSecret,
    userSecret: connection.userSecret,
  });
  return {
    createDeposit(connection: Connection, idempotencyKey: string, request: DepositRequest) {
      return reply(() =>
        client.create(as(connection), { senderID: connection.accountId, ...request }, idempotencyKey),
      );
    },

    readDeposit(connection: Connection, operationID: string) {
      return reply(() => client.get(as(connection), operationID));
    },

    cancelDeposit(connection: Connection, operationID: string) {
      return reply(() => client.cancel(as(connection), operationID));
    },

    /** Creates a payment source, or (the same key with `userInputs`) answers the bank's question. */
    createSource(
      connection: Connection,
      idempotencyKey: string,
      walletAccountID: string,
      userInputs?: DepositRequest['userInputs'],
    ) {
      return reply(() =>
        client.createSource(
          as(connection),
          { walletAccountID, ...(userInputs ? { userInputs } : {}) },
          idempotencyKey,
        ),
      );
    },

    readSource(connection: Connection, sourceID: string) {
      return reply(() => client.getSource(as(connection), sourceID));
    },

    cancelSource(connection: Connection, sourceID: string) {
      return reply(() => client.cancelSource(as(connection), sourceID));
    },
  };
}
