/** What a call that must be refused was refused with; a call that succeeds fails the test. */
import type { DepositError } from '#shared/deposits/model/errors';

export async function refusal<E = DepositError>(promise: Promise<unknown>): Promise<E> {
  try {
    await promise;
  } catch (error) {
    return error as E;
  }
  throw new Error('expected a refusal');
}
