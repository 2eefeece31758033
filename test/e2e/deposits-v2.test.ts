/**
 * The orchestrator in the `dapi-v2` dialect against the sandbox (issue 30 item 5), on a local stack
 * of this file's own whose provider client speaks v2 (`PROVIDER_DIALECT=dapi-v2`; the e2e project's
 * shared stack speaks the spec's): these deposits run whole, and every provider call the stack makes
 * for them is a v2 call. In v2 the sandbox holds a call until the bank is done (no `sync`:
 * docs/sandbox.md), so a transfer answers `done` at once and is not read back.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalStack } from '#infra/local/stack';
import { DepositsClient } from '#shared/deposits-api/client';
import { dapiV2Dialect, sharedPaths } from '#shared/provider/interface/dialects';
import { otpAnswer, stepsOf } from '../support/deposits.ts';
import { eventually } from '../support/eventually.ts';
import { appSecret, createUser, post, startStack, transfersOf, type User } from '../support/own-stack.ts';

let stack: LocalStack;
let client: DepositsClient;

beforeAll(async () => {
  stack = await startStack({ PROVIDER_DIALECT: 'dapi-v2' });
  client = new DepositsClient({ baseUrl: stack.depositsUrl, retries: 0, timeoutMs: 30_000 });
});

afterAll(async () => {
  await stack?.stop();
});

const v2Paths = new Set(Object.values(dapiV2Dialect.paths));
const v2Only = (calls: string[]) => calls.length > 0 && calls.every((path) => v2Paths.has(path));

const connectionOf = (user: User) => ({
  accessToken: user.accessToken,
  userSecret: user.userSecret,
  appSecret,
});

function start(user: User, amount: number, key?: string, userInputs?: ReturnType<typeof otpAnswer>) {
  const request = { amount, senderID: user.accountId, ...(userInputs ? { userInputs } : {}) };
  return client.create(connectionOf(user), request, key);
}

function depositWhen(
  user: User,
  id: string,
  // biome-ignore lint/suspicious/noExplicitAny: the deposit's JSON, whose fields the tests read one by one
  stop: (deposit: any) => boolean = (deposit) => deposit.status === 'done' || deposit.status === 'failed',
) {
  return eventually(async () => {
    const deposit = (await client.get(connectionOf(user), id)).body;
    return stop(deposit) ? deposit : undefined;
  }, 30_000);
}

/** The paths of the provider calls the stack made for this user (the journal, cleared as read). */
async function takeProviderCalls(user: User): Promise<string[]> {
  const reply = await post(`${stack.depositsUrl}/_local/provider-calls`, {
    accessToken: user.accessToken,
    clear: true,
  });
  return (reply.body.calls as { path: string }[]).map((call) => call.path);
}

describe('deposits with the provider client in dapi-v2', () => {
  it('scenario 1: the beneficiary created and listed, the transfer to it, all in v2', async () => {
    // prepare
    const user = await createUser(stack, 'SANDBOX_BENEFICIARY');

    // act
    const started = await start(user, 150.25);
    const done = await depositWhen(user, String(started.body.operationID));
    const calls = await takeProviderCalls(user);

    // assess
    expect(done).toMatchObject({ status: 'done', reference: expect.any(String) });
    expect(stepsOf(done)).toEqual(['resolve-bank', 'ensure-beneficiary', 'transfer', 'completed']);
    expect(v2Only(calls), JSON.stringify(calls)).toBe(true);
    expect(calls).toContain(dapiV2Dialect.paths.beneficiariesCreate);
    expect(calls.filter((path) => !sharedPaths().includes(path)).length).toBeGreaterThan(0);
    expect(await transfersOf(stack, user)).toHaveLength(1);
  });

  it('an OTP bank: the questions resumed with operationID, all in v2', async () => {
    // prepare
    const user = await createUser(stack, 'SANDBOX_OTP');
    const key = 'otp-deposit-v2';

    // act
    const started = await start(user, 75, key);
    const id = String(started.body.operationID);
    const first = await depositWhen(user, id, (d) => d.status === 'user_input_required');
    await start(user, 75, key, otpAnswer(first));
    const second = await depositWhen(
      user,
      id,
      (d) => d.status === 'user_input_required' && d.step === 'transfer',
    );
    await start(user, 75, key, otpAnswer(second));
    const done = await depositWhen(user, id);
    const calls = await takeProviderCalls(user);

    // assess
    expect(done).toMatchObject({ status: 'done', reference: expect.any(String) });
    expect(v2Only(calls), JSON.stringify(calls)).toBe(true);
    expect(await transfersOf(stack, user)).toHaveLength(1);
  });

  it('scenario 3: autoflow with the receiver inline, all in v2', async () => {
    // prepare
    const user = await createUser(stack, 'SANDBOX_NO_BENEFICIARY');

    // act
    const started = await start(user, 99.99);
    const done = await depositWhen(user, String(started.body.operationID));
    const calls = await takeProviderCalls(user);

    // assess
    expect(done).toMatchObject({ status: 'done' });
    expect(calls).toContain(dapiV2Dialect.paths.transferAutoflow);
    expect(v2Only(calls), JSON.stringify(calls)).toBe(true);
    const [transfer] = await transfersOf(stack, user);
    expect(transfer).toMatchObject({ amount: 99.99 });
  });
});
