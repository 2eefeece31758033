/**
 * `npm run demo [-- BANK_ID]`: one deposit, watched step by step in the terminal. It creates a
 * sandbox user on the bank (SANDBOX_OTP by default), starts a deposit into the wallet account, prints
 * each step as the orchestrator takes it, counts down a cool-down, and asks for the one-time
 * password when the bank wants one. It uses the stack `npm start` runs if one answers on
 * DEPOSITS_URL / SANDBOX_URL, and otherwise starts its own.
 */
import { randomUUID } from 'node:crypto';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { DepositsClient } from '#shared/deposits-api/client';

const bankId = process.argv[2] ?? 'SANDBOX_OTP';
const appSecret = process.env.SANDBOX_APP_SECRET ?? 'sandbox-local-app-secret';
const steps: Record<string, string> = {
  'resolve-bank': 'reading the bank metadata and its rules',
  'ensure-beneficiary': 'registering the wallet account as a beneficiary',
  'wait-cooldown': "waiting for the bank's beneficiary cool-down",
  transfer: 'sending the transfer',
  completed: 'finished',
};

const say = (line: string) => process.stdout.write(`${line}\n`);
const clock = () => new Date().toISOString().slice(11, 19);

async function answering(url: string): Promise<boolean> {
  try {
    return (await fetch(`${url}/health`, { signal: AbortSignal.timeout(500) })).ok;
  } catch {
    return false;
  }
}

/** The sandbox's administration (the deposits API goes through its typed client). */
async function post(url: string, body: unknown) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return (await response.json()) as Record<string, any>;
}

let depositsUrl = process.env.DEPOSITS_URL ?? 'http://127.0.0.1:3000';
let sandboxUrl = process.env.SANDBOX_URL ?? 'http://127.0.0.1:3001';
let stop = async () => {};
if (!(await answering(depositsUrl)) || !(await answering(sandboxUrl))) {
  say('No local stack answers; starting one for this demo (a few seconds)...');
  const { startLocalStack } = await import('./stack.ts');
  const stack = await startLocalStack({
    sandboxPort: 0,
    depositsPort: 0,
    operatorPort: 0,
    env: { POWERTOOLS_LOG_LEVEL: 'ERROR', LONG_WAIT_SECONDS: '2' },
  });
  depositsUrl = stack.depositsUrl;
  sandboxUrl = stack.sandboxUrl;
  stop = stack.stop;
}

try {
  const user = await post(`${sandboxUrl}/sandbox/users`, { appSecret, bankId });
  if (!user.connectionID) throw new Error(`could not create a user on ${bankId}: ${JSON.stringify(user)}`);
  const { accessToken } = await post(`${sandboxUrl}/v1/auth/ExchangeToken`, {
    appSecret,
    accessCode: user.accessCode,
    connectionID: user.connectionID,
  });
  const account = user.accounts[0];
  const amount = account.currency === 'KWD' ? 25.125 : 250;
  const walletAccountID = account.currency === 'KWD' ? 'wallet-kwd' : undefined;
  say(
    `\nA user of ${bankId} with ${account.balance} ${account.currency}; depositing ${amount} ${account.currency}.\n`,
  );

  const key = randomUUID();
  const deposits = new DepositsClient({ baseUrl: depositsUrl });
  const connection = { accessToken, appSecret, userSecret: user.userSecret };
  const request = { amount, senderID: account.id, walletAccountID };
  const create = async (extra: object = {}) =>
    (await deposits.create(connection, { ...request, ...extra }, key)).body;
  const started = await create();
  say(`[${clock()}] deposit ${started.operationID} accepted`);

  // Lines are read through the iterator, which buffers them: answers typed (or piped) early are kept.
  const terminal = createInterface({ input: process.stdin });
  const lines = terminal[Symbol.asyncIterator]();
  let shown = 0;
  let lastCountdown = 0;
  for (;;) {
    const { body: deposit } = await deposits.get(connection, started.operationID);
    for (const entry of deposit.history.slice(shown)) {
      say(
        `[${entry.at.slice(11, 19)}] ${entry.step.padEnd(19)} ${steps[entry.step] ?? ''}${entry.note ? ` (${entry.note})` : ''}`,
      );
    }
    shown = deposit.history.length;
    if (deposit.status === 'done') {
      say(`\nDone. Transfer reference ${deposit.reference}.`);
      break;
    }
    if (deposit.status === 'failed') {
      say(`\nFailed: ${deposit.type}: ${deposit.msg}`);
      process.exitCode = 1;
      break;
    }
    if (deposit.resumesAt) {
      const left = Math.ceil((Date.parse(deposit.resumesAt) - Date.now()) / 1000);
      if (left !== lastCountdown && left > 0) say(`           cool-down: ${left} s left`);
      lastCountdown = left;
    }
    if (deposit.status === 'user_input_required') {
      const answers = [];
      for (const input of deposit.userInputs ?? []) {
        process.stdout.write(`           The bank asks: ${input.query} (sandbox OTP: 123456) > `);
        const line = await lines.next();
        if (line.done) throw new Error('no answer: standard input ended');
        if (!process.stdin.isTTY) say(String(line.value));
        answers.push({ ...input, answer: String(line.value).trim() });
      }
      await create({ userInputs: answers });
      continue;
    }
    await sleep(250);
  }
  terminal.close();
  const after = await post(`${sandboxUrl}/sandbox/users/get`, { appSecret, connectionID: user.connectionID });
  say(`The user's account now holds ${after.accounts[0].balance} ${after.accounts[0].currency}.`);
} finally {
  await stop();
}
