/**
 * Which errors pass with time (a step's last try that fails with one leaves its deposit to the
 * sweeper: deposits-reliability.test.ts): the SDK's own errors, as its clients throw them.
 */
import {
  ConditionalCheckFailedException,
  InternalServerError,
  ProvisionedThroughputExceededException,
  ResourceNotFoundException,
  TransactionConflictException,
} from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { passesWithTime } from '#shared/adapters/passing-errors';

const metadata = (httpStatusCode: number) => ({ $metadata: { httpStatusCode } });
const named = (name: string, extra: object = {}) => Object.assign(new Error(name), { name }, extra);

describe('an error that passes with time', () => {
  it.each([
    [
      'a throughput exceeded',
      new ProvisionedThroughputExceededException({ message: 'slow down', ...metadata(400) }),
    ],
    ['a throttling', named('ThrottlingException', metadata(400))],
    ['an internal error', new InternalServerError({ message: 'internal', ...metadata(500) })],
    [
      'a write racing a transaction',
      new TransactionConflictException({ message: 'ongoing', ...metadata(400) }),
    ],
    ['a timeout', named('TimeoutError')],
    ['a reset connection', Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' })],
    ['a 503', named('ServiceUnavailable', metadata(503))],
  ])('%s passes', (_, error) => {
    expect(passesWithTime(error)).toBe(true);
  });

  it.each([
    ['a failed condition', new ConditionalCheckFailedException({ message: 'no', ...metadata(400) })],
    ['a missing table', new ResourceNotFoundException({ message: 'no table', ...metadata(400) })],
    ['a defect of ours', new TypeError("Cannot read properties of undefined (reading 'id')")],
    ['a thrown string', 'wallet account gone'],
    ['nothing', undefined],
  ])('%s does not', (_, error) => {
    expect(passesWithTime(error)).toBe(false);
  });
});
