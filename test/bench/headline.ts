/**
 * The headline: the orchestrator's own time, with no delay of the bank to hide it. At
 * SANDBOX_BENEFICIARY, users whose bank carries operations out at once (`asyncDelaySeconds: 0`):
 *
 *   first deposit    create until the deposit reads `done` (read every 5 ms), beside the calls a
 *                    hand-written integration makes for the same deposit, one after the other
 *                    with the provider client: metadata, list, create the beneficiary, list again
 *                    for its id, and the transfer with `sync: true` (at a bank that answers at
 *                    once, that is the call such an integration makes: its answer is the outcome)
 *   repeat deposit   the same user's next deposit, beside its one transfer call
 *
 * and where the orchestrated first deposit's time goes, step by step (its history's instants).
 */
import type { LocalStack } from '#infra/local/stack';
import { localWallets } from '#infra/local/wallets';
import { isWalletAccount, walletAccounts } from '#shared/deposits/model/wallets';
import { ProviderClient, type ProviderCredentials } from '#shared/provider/client';
import { appSecret, type BenchUser, createUser, percentile, runDeposit } from './flow.ts';

const wallet = walletAccounts(localWallets).find((candidate) => candidate.id === 'wallet-aed');

const both = (values: number[]) => ({ p50: percentile(values, 50), p95: percentile(values, 95) });

/** The hand-written integration's first deposit, then its repeat (one transfer): their times in ms. */
async function handWritten(stack: LocalStack, user: BenchUser, amountMinor: number) {
  if (!wallet) throw new Error('no wallet-aed');
  const client = new ProviderClient({ baseUrl: stack.sandboxUrl, timeoutMs: 10_000 });
  const credentials: ProviderCredentials = {
    accessToken: user.accessToken,
    appSecret,
    userSecret: user.userSecret,
  };
  const order = { amountMinor, currency: 'AED' as const, senderID: user.accountId };
  const started = performance.now();
  await client.getMetadata(credentials);
  await client.listBeneficiaries(credentials);
  await client.createBeneficiary(credentials, wallet.beneficiary);
  const listed = await client.listBeneficiaries(credentials);
  const receiverID = listed.response.beneficiaries?.find((entry) => isWalletAccount(wallet, entry))?.id;
  if (!receiverID) throw new Error('the hand-written integration found no beneficiary');
  const first = await client.createTransfer(credentials, { ...order, receiverID }, undefined, { sync: true });
  const firstMs = performance.now() - started;
  const again = performance.now();
  const repeat = await client.createTransfer(credentials, { ...order, receiverID }, undefined, {
    sync: true,
  });
  const repeatMs = performance.now() - again;
  if (first.status !== 'done' || repeat.status !== 'done')
    throw new Error('a hand-written transfer is not done');
  return { firstMs, repeatMs };
}

/** Each step's share of a deposit's time: from entering it to entering the next (its history). */
function stepTimes(history: { step: string; at: string }[]): Record<string, number> {
  const times: Record<string, number> = {};
  history.forEach((entry, index) => {
    const next = history[index + 1];
    if (next && next.step !== entry.step)
      times[entry.step] = (times[entry.step] ?? 0) + Date.parse(next.at) - Date.parse(entry.at);
  });
  return times;
}

export async function zeroDelayHeadline(stack: LocalStack, runs: number) {
  const amount = 20;
  const first: number[] = [];
  const repeat: number[] = [];
  const direct: number[] = [];
  const directRepeat: number[] = [];
  const steps: Record<string, number[]> = {};
  for (let run = 0; run < runs; run += 1) {
    const [depositUser, directUser] = await Promise.all([
      createUser(stack, 'SANDBOX_BENEFICIARY', { asyncDelaySeconds: 0 }),
      createUser(stack, 'SANDBOX_BENEFICIARY', { asyncDelaySeconds: 0 }),
    ]);
    const firstRun = await runDeposit(stack, depositUser, amount, { pollMs: 5 });
    const repeatRun = await runDeposit(stack, depositUser, amount, { pollMs: 5 });
    if (firstRun.status !== 'done' || repeatRun.status !== 'done')
      throw new Error('a headline deposit is not done');
    first.push(firstRun.doneMs);
    repeat.push(repeatRun.doneMs);
    for (const [step, ms] of Object.entries(stepTimes(firstRun.history)))
      steps[step] = [...(steps[step] ?? []), ms];
    const hand = await handWritten(stack, directUser, amount * 100);
    direct.push(hand.firstMs);
    directRepeat.push(hand.repeatMs);
  }
  const figures = {
    runs,
    first: {
      orchestrated: both(first),
      direct: both(direct),
      overheadP50: percentile(first, 50) - percentile(direct, 50),
    },
    repeat: {
      orchestrated: both(repeat),
      transferCall: both(directRepeat),
      overheadP50: percentile(repeat, 50) - percentile(directRepeat, 50),
    },
    firstBySteps: Object.fromEntries(Object.entries(steps).map(([step, values]) => [step, both(values)])),
  };
  const ms = (value: number) => `${value.toFixed(0).padStart(5)} ms`;
  const lines = [
    '',
    `Headline: SANDBOX_BENEFICIARY, a bank that carries operations out at once (asyncDelaySeconds 0), ${runs} runs`,
    `  first deposit    orchestrated p50 ${ms(figures.first.orchestrated.p50)} p95 ${ms(figures.first.orchestrated.p95)}   hand-written p50 ${ms(figures.first.direct.p50)} p95 ${ms(figures.first.direct.p95)}   overhead p50 ${ms(figures.first.overheadP50)} (target 60 ms)`,
    `  repeat deposit   orchestrated p50 ${ms(figures.repeat.orchestrated.p50)} p95 ${ms(figures.repeat.orchestrated.p95)}   its transfer call p50 ${ms(figures.repeat.transferCall.p50)} p95 ${ms(figures.repeat.transferCall.p95)}   overhead p50 ${ms(figures.repeat.overheadP50)} (target 25 ms)`,
    '  first deposit, by step (entering it until entering the next):',
    ...Object.entries(figures.firstBySteps).map(
      ([step, { p50, p95 }]) => `    ${step.padEnd(20)} p50 ${ms(p50)}  p95 ${ms(p95)}`,
    ),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  return figures;
}
