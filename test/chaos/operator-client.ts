/**
 * The chaos harness's calls to the operator API, as an operator makes them: a redrive of a deposit in
 * flight, and the resolve of an unknown transfer outcome after looking at the bank's ledger.
 */
import type { LocalStack } from '#infra/local/stack';
import { send } from './http.ts';

export function operatorClient(stack: LocalStack) {
  const headers = { authorization: `Bearer ${stack.operatorToken}` };
  return {
    redrive(operationID: string) {
      return send('POST', `${stack.operatorUrl}/v1/ops/deposits/redrive`, { operationID }, headers);
    },

    resolve(operationID: string, outcome: 'done' | 'failed', reason: string, reference?: string) {
      const body = { operationID, outcome, reason, ...(reference ? { reference } : {}) };
      return send('POST', `${stack.operatorUrl}/v1/ops/deposits/resolve`, body, headers);
    },
  };
}
