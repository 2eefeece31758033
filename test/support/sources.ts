/** Payment sources driven to their end by a caller that answers the bank (the `sources*` e2e files). */
import { expect } from 'vitest';
import { depositWhen, otpAnswer, sourceWhen, startDeposit, startSource } from './deposits.ts';
import type { TestUser } from './sandbox.ts';

export type Entry = { step: string; status: string; note?: string };
export type Body = Record<string, unknown> & { status: string; updatedAt: string; history: Entry[] };

export const ended = (body: Record<string, unknown>) => body.status === 'ready' || body.status === 'failed';

/** Starts a source and drives it to its end, answering every question the bank asks on the way. */
export async function prepareSource(user: TestUser, walletAccountID?: string): Promise<Body> {
  const key = `source-${user.connectionID}`;
  const wallet = walletAccountID ? { walletAccountID } : {};
  const started = await startSource(user, wallet, key);
  expect(started.status).toBe(202);
  const id = String(started.body.sourceID);
  for (let questions = 0; questions < 6; questions += 1) {
    const now = (await sourceWhen(
      user,
      id,
      (s) => ended(s) || s.status === 'user_input_required',
      30_000,
    )) as Body;
    if (now.status !== 'user_input_required') return now;
    await startSource(user, { ...wallet, userInputs: otpAnswer(now) }, key);
    await sourceWhen(user, id, (s) => s.updatedAt !== now.updatedAt);
  }
  throw new Error(`source ${id} kept asking`);
}

/** Starts a deposit and drives it to its end, answering the question the bank may ask on its transfer. */
export async function depositThrough(user: TestUser, amount: number, walletAccountID?: string) {
  const key = `deposit-${user.connectionID}-${amount}`;
  const request = { amount, ...(walletAccountID ? { walletAccountID } : {}) };
  const started = await startDeposit(user, request, key);
  const id = String(started.body.operationID);
  const now = await depositWhen(user, id, (d) => d.status !== 'initialized', 30_000);
  if (now.status !== 'user_input_required') return now;
  await startDeposit(user, { ...request, userInputs: otpAnswer(now) }, key);
  return depositWhen(user, id, undefined, 30_000);
}
