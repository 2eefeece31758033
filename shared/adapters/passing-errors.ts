/**
 * Errors that pass with time: the ones the AWS SDK's own retries classify so (throttling, a 5xx, a
 * timeout, a reset or refused connection: `@smithy/core`'s classification, which the SDK retries
 * by), and DynamoDB's TransactionConflictException (a plain write that met a transaction under way
 * on its item, which the SDK does not retry). A step whose last try fails with one is left to the
 * sweeper instead of failing its deposit (`step-messages.ts`).
 */
import { isThrottlingError, isTransientError } from '@smithy/core/retry';

export function passesWithTime(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const sdkError = error as Parameters<typeof isTransientError>[0];
  return (
    (error as Error).name === 'TransactionConflictException' ||
    isThrottlingError(sdkError) ||
    isTransientError(sdkError)
  );
}
