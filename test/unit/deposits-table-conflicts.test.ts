/**
 * Two creates with one idempotency key at the same instant: DynamoDB cancels one transaction as a
 * TransactionConflict (DynamoDB Local serialises transactions and never does, so the client here is
 * a stand-in that injects the fault). The loser must answer the winner's deposit, never a 500.
 */
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { IdempotencyItems } from '#shared/adapters/deposit-items';
import { world } from '../support/deposit-world.ts';

function cancelled(code: 'TransactionConflict' | 'ConditionalCheckFailed') {
  return new TransactionCanceledException({
    message: 'Transaction cancelled',
    $metadata: {},
    CancellationReasons: [{ Code: code }, { Code: 'None' }],
  });
}

describe('creating a deposit once per key', () => {
  it('answers the winner deposit when its transaction lost to a concurrent one', async () => {
    const w = world();
    const deposit = await w.deposit();
    w.table.items.clear();
    const sent: string[] = [];
    // The winner commits while ours is cancelled as a conflict; a retry then finds the key taken.
    const outcomes = [cancelled('TransactionConflict'), cancelled('ConditionalCheckFailed')];
    const client = {
      send: async (command: unknown) => {
        if (command instanceof TransactWriteCommand) {
          sent.push('transact');
          throw outcomes.shift() ?? new Error('no more outcomes');
        }
        if (command instanceof GetCommand) {
          sent.push('get');
          return { Item: { pk: 'IDEMPOTENCY#x', sk: 'IDEMPOTENCY', depositId: 'dep_winner' } };
        }
        throw new Error('unexpected command');
      },
    };
    const items = new IdempotencyItems({ client: client as never, tableName: 'deposits' });

    const outcome = await items.createOnce(deposit);

    expect(outcome).toEqual({ created: false, depositId: 'dep_winner', taken: 'idempotencyKey' });
    expect(sent).toEqual(['transact', 'transact', 'get']);
  });
});
