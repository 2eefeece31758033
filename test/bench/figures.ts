/**
 * What the bench's parts share to read their counts and print them: sums, DynamoDB's figures of a
 * tally by table, a time in a column, and how long a deposit's last step goes on after `done`.
 */
import type { PerDeposit } from './counting.ts';

/** After the caller reads `done`, the last step still finishes (releases, marks, its delete). */
export const settleMs = 400;

export function sum(values: number[]) {
  return values.reduce((total, value) => total + value, 0);
}

/** DynamoDB figures of a tally by table: requests, write requests, units. */
export function dynamo(counts: PerDeposit, table?: string) {
  const entries = Object.entries(counts.aws).filter(
    ([key]) => key.startsWith('DynamoDB ') && (table === undefined || key.endsWith(` ${table}`)),
  );
  const isWrite = (key: string) =>
    /PutItem|UpdateItem|DeleteItem|BatchWriteItem|TransactWriteItems/.test(key);
  return {
    reads: sum(entries.filter(([key]) => !isWrite(key)).map(([, count]) => count.requests)),
    writes: sum(entries.filter(([key]) => isWrite(key)).map(([, count]) => count.requests)),
    readUnits: sum(entries.map(([, count]) => count.readUnits)),
    writeUnits: sum(entries.map(([, count]) => count.writeUnits)),
  };
}

export const ms = (value: number) => `${value.toFixed(0).padStart(5)} ms`;
