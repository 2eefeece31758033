/**
 * A wallet backend's deposit through the installed package (`@bank-data/deposits-client`), start to
 * end, for a user whose bank asks one-time passwords: the deposit created with the user's connection,
 * the bank's first question answered with `answer`, the rest awaited with `waitFor` (which answers the
 * next question on the way), then the deposit read by its id alone, as the backend that created it:
 * no token, no user secret. Prints `{ asked, ended, read }` as one JSON line.
 *
 * The user's connection comes from your onboarding (the provider's ExchangeToken); here, from the
 * environment. test/e2e/client-package.test.ts builds this in a scratch project and runs it with
 * plain `node` against the local stack:
 *
 *   DEPOSITS_URL=http://127.0.0.1:3000 ACCESS_TOKEN=... USER_SECRET=... SENDER_ID=acc_... node deposit.js
 */
import { randomUUID } from 'node:crypto';
import { type Answer, type DepositOf, DepositsClient, type EndedDeposit } from '@bank-data/deposits-client';

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
}

const connection = {
  accessToken: required('ACCESS_TOKEN'),
  appSecret: process.env.APP_SECRET ?? 'sandbox-local-app-secret',
  userSecret: required('USER_SECRET'),
};
const deposits = new DepositsClient({
  baseUrl: process.env.DEPOSITS_URL ?? 'http://127.0.0.1:3000',
  timeoutMs: 30_000,
});
/** The user types the password the bank sent; the sandbox's banks take this one. */
const otp = (asking: DepositOf<'user_input_required'>): Answer[] =>
  asking.userInputs.map((input) => ({ id: input.id, answer: process.env.OTP ?? '123456' }));
/** Reads at most a second apart: a question is answered well inside its time. */
const waiting = { maxDelayMs: 1_000, signal: AbortSignal.timeout(Number(process.env.WAIT_MS ?? 120_000)) };

// Keep the key with your own record of the top-up: the same key never starts a second deposit.
const { body: started } = await deposits.create(
  connection,
  {
    amount: Number(process.env.AMOUNT ?? 42.5),
    senderID: required('SENDER_ID'),
    clientReference: process.env.CLIENT_REFERENCE ?? `topup-${randomUUID()}`,
    metadata: { walletUser: process.env.WALLET_USER ?? 'u-42' },
  },
  randomUUID(),
);

// Without `onQuestion`, the wait ends at the bank's first question.
const asked = await deposits.waitFor(started.operationID, waiting);
if (asked.status !== 'user_input_required') throw new Error(`no question: the deposit is ${asked.status}`);
await deposits.answer(started.operationID, otp(asked));

// With it, each question is answered as it comes, until the deposit ends.
const ended: EndedDeposit = await deposits.waitFor(started.operationID, { ...waiting, onQuestion: otp });
if (ended.status === 'failed') throw new Error(`the deposit failed: ${ended.type} (${ended.msg})`);

// Later (a reconciliation job, a support screen): by its id alone.
const { body: read } = await deposits.get(started.operationID);
console.log(JSON.stringify({ asked, ended, read }));
