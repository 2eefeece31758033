/**
 * `npm run demo [-- BANK_ID]`: one deposit, watched step by step in the terminal. It creates a
 * sandbox user on the bank (SANDBOX_OTP by default), starts a deposit into the wallet account, prints
 * each step as the orchestrator takes it, counts down a cool-down, and asks for the one-time
 * password when the bank wants one. `npm run demo -- --source BANK_ID` first prepares a payment
 * source (bank, beneficiary, cool-down, counted down), then makes a deposit that goes straight to the
 * transfer. `--skip-cooldown` moves the local stack's clock past a cool-down instead of waiting it
 * out (SANDBOX_COOLDOWN's day included). It finds the stack `npm start` runs by the same variables:
 * PORT and SANDBOX_PORT (3000 and 3001), on HOST, or DEPOSITS_URL and SANDBOX_URL whole; it says
 * which stack it uses, refuses one where something else answers, and when nothing answers starts its
 * own (on free ports, stopped at the end).
 */
import { randomUUID } from 'node:crypto';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { contracts } from '#shared/contracts/contracts';
import { DepositsClient } from '#shared/deposits-api/client';
import { reachableHost } from './host-guard.ts';

const withSource = process.argv.includes('--source');
const skipCooldown = process.argv.includes('--skip-cooldown');
const bankId = process.argv.slice(2).find((arg) => !arg.startsWith('--')) ?? 'SANDBOX_OTP';
const appSecret = process.env.SANDBOX_APP_SECRET ?? 'sandbox-local-app-secret';
const steps: Record<string, string> = {
  'resolve-bank': 'reading the bank metadata and its rules',
  'ensure-beneficiary': 'registering the wallet account as a beneficiary',
  'wait-cooldown': "waiting for the bank's beneficiary cool-down",
  transfer: 'sending the transfer',
  reconcile: "reading the transfer's outcome",
  completed: 'finished',
};

const say = (line: string) => process.stdout.write(`${line}\n`);
const clock = () => new Date().toISOString().slice(11, 19);

/**
 * What answers at `url`: this service's local API (the contract it serves names it), something else,
 * or nothing.
 */
async function whatAnswers(url: string, api: 'deposits' | 'sandbox'): Promise<'ours' | 'other' | 'nothing'> {
  try {
    // A refused connection is nothing at once; a busy stack may take seconds to answer, and is ours.
    const answer = await fetch(`${url}/openapi.json`, { signal: AbortSignal.timeout(10_000) });
    const document = (await answer.json().catch(() => undefined)) as
      | { info?: { title?: unknown } }
      | undefined;
    return answer.ok && document?.info?.title === contracts[api]?.title ? 'ours' : 'other';
  } catch {
    return 'nothing';
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

/** The local stack's time: its clock may be ahead of this machine's (`POST /_local/clock`). */
async function stackNow(): Promise<number> {
  const answer = await fetch(`${depositsUrl}/_local/clock`).catch(() => undefined);
  if (!answer?.ok) return Date.now();
  return Date.parse(((await answer.json()) as { now: string }).now);
}

const host = reachableHost(process.env.HOST || '127.0.0.1');
const depositsFrom = process.env.DEPOSITS_URL ? 'DEPOSITS_URL' : 'PORT';
const sandboxFrom = process.env.SANDBOX_URL ? 'SANDBOX_URL' : 'SANDBOX_PORT';
let depositsUrl = process.env.DEPOSITS_URL || `http://${host}:${process.env.PORT || 3000}`;
let sandboxUrl = process.env.SANDBOX_URL || `http://${host}:${process.env.SANDBOX_PORT || 3001}`;
let stop = async () => {};
const found = {
  deposits: await whatAnswers(depositsUrl, 'deposits'),
  sandbox: await whatAnswers(sandboxUrl, 'sandbox'),
};
if (found.deposits === 'ours' && found.sandbox === 'ours') {
  say(
    `Using the local stack at ${depositsUrl} (deposits API, ${depositsFrom}) and ${sandboxUrl} (sandbox, ${sandboxFrom}).`,
  );
} else if (found.deposits !== 'nothing' || found.sandbox !== 'nothing') {
  const seen = (url: string, from: string, what: string, state: string) =>
    state === 'ours'
      ? `  ${url} (${from}): the ${what}`
      : `  ${url} (${from}): ${state === 'other' ? `something that is not the ${what}` : 'nothing answers'}`;
  process.stderr.write(
    [
      'The demo needs the deposits API and the sandbox of one local stack, and found:',
      seen(depositsUrl, depositsFrom, 'deposits API', found.deposits),
      seen(sandboxUrl, sandboxFrom, 'sandbox', found.sandbox),
      'Set PORT and SANDBOX_PORT to the ports npm start printed (as you started it), or free these ports and the demo starts its own stack.',
      '',
    ].join('\n'),
  );
  process.exit(2);
} else {
  say(
    `No local stack answers at ${depositsUrl} (${depositsFrom}) and ${sandboxUrl} (${sandboxFrom}); starting one for this demo (a few seconds)...`,
  );
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
  say(
    `Using its own local stack at ${depositsUrl} (deposits API) and ${sandboxUrl} (sandbox), stopped when the demo ends.`,
  );
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
  const deposits = new DepositsClient({ baseUrl: depositsUrl });
  const connection = { accessToken, appSecret, userSecret: user.userSecret };
  // Lines are read through the iterator, which buffers them: answers typed (or piped) early are kept.
  const terminal = createInterface({ input: process.stdin });
  const lines = terminal[Symbol.asyncIterator]();

  /** Prints a deposit's (or source's) steps as it takes them, answering the bank, until it ends. */
  async function watch(
    read: () => Promise<Watched>,
    answer: (userInputs: object[]) => Promise<unknown>,
    labels: Record<string, string> = steps,
  ) {
    let shown = 0;
    let lastCountdown = 0;
    for (;;) {
      const watched = await read();
      for (const entry of watched.history.slice(shown)) {
        const note = entry.note ? ` (${entry.note})` : '';
        say(`[${entry.at.slice(11, 19)}] ${entry.step.padEnd(19)} ${labels[entry.step] ?? ''}${note}`);
      }
      shown = watched.history.length;
      if (['done', 'ready', 'failed'].includes(watched.status)) return watched;
      const until = watched.resumesAt ?? watched.readyAt;
      if (until) {
        const left = Math.ceil((Date.parse(until) - (await stackNow())) / 1000);
        if (left !== lastCountdown && left > 0) say(`           cool-down: ${left} s left`);
        lastCountdown = left;
        if (skipCooldown && left > 0) {
          await fetch(`${depositsUrl}/_local/clock`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ advanceSeconds: left }),
          });
          say(`           --skip-cooldown: the local clock moved ${left} s forward`);
        }
      }
      if (watched.status === 'user_input_required') {
        const answers = [];
        for (const input of watched.userInputs ?? []) {
          process.stdout.write(`           The bank asks: ${input.query} (sandbox OTP: 123456) > `);
          const line = await lines.next();
          if (line.done) throw new Error('no answer: standard input ended');
          if (!process.stdin.isTTY) say(String(line.value));
          answers.push({ ...input, answer: String(line.value).trim() });
        }
        await answer(answers);
        continue;
      }
      await sleep(250);
    }
  }

  say(`\nA user of ${bankId} with ${account.balance} ${account.currency}.`);
  if (withSource) {
    say('Preparing a payment source first, as a wallet does at onboarding.\n');
    const sourceKey = randomUUID();
    const source = async (extra: object = {}) =>
      (await deposits.createSource(connection, { walletAccountID, ...extra }, sourceKey)).body;
    const started = await source();
    say(`[${clock()}] source ${started.sourceID} accepted`);
    const ended = await watch(
      async () => (await deposits.getSource(connection, started.sourceID)).body,
      (userInputs) => source({ userInputs }),
      { ...steps, transfer: 'where a source stops: no transfer', completed: 'ready' },
    );
    if (ended.status !== 'ready') throw new Error(`the source failed: ${ended.type}: ${ended.msg}`);
    say('\nReady: deposits into this wallet account now go straight to the transfer.');
  }

  say(`\nDepositing ${amount} ${account.currency}.\n`);
  const key = randomUUID();
  const request = { amount, senderID: account.id, walletAccountID };
  const create = async (extra: object = {}) =>
    (await deposits.create(connection, { ...request, ...extra }, key)).body;
  const started = await create();
  say(`[${clock()}] deposit ${started.operationID} accepted`);
  const deposit = await watch(
    async () => (await deposits.get(connection, started.operationID)).body,
    (userInputs) => create({ userInputs }),
  );
  terminal.close();
  if (deposit.status === 'done') {
    say(`\nDone. Transfer reference ${deposit.reference}.`);
  } else {
    say(`\nFailed: ${deposit.type}: ${deposit.msg}`);
    process.exitCode = 1;
  }
  const after = await post(`${sandboxUrl}/sandbox/users/get`, { appSecret, connectionID: user.connectionID });
  say(`The user's account now holds ${after.accounts[0].balance} ${after.accounts[0].currency}.`);
} finally {
  await stop();
}

/** What the demo shows of a deposit or a source. */
interface Watched {
  status: string;
  history: { step: string; at: string; note?: string | undefined }[];
  resumesAt?: string | undefined;
  readyAt?: string | undefined;
  userInputs?: { query: string }[] | undefined;
  reference?: string | undefined;
  type?: string | undefined;
  msg?: string | undefined;
}
