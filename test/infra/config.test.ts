import { describe, expect, it } from 'vitest';
import { readDeploymentConfig } from '#infra/cdk/config';
import { functionSettings, limits, queueAlarms, settingsOf } from '#infra/cdk/settings';
import { localWallets } from '#infra/local/wallets';
import { faultWaitBudgetMs } from '#shared/provider/interface/limits';
import { depositsApi, operatorApi, outbox, queues, sandboxApi, sweeper } from '#shared/topology';
import { prodWallets } from './synth.ts';

const read = (context: Record<string, unknown>, environment: NodeJS.ProcessEnv = {}) =>
  readDeploymentConfig((key) => context[key], environment);

describe('deployment configuration (CDK context)', () => {
  it('defaults to dev with the sandbox, the local wallet accounts and us-east-1', () => {
    const config = read({});

    expect(config).toMatchObject({
      stage: 'dev',
      prefix: 'BankPayments-dev',
      sandbox: true,
      walletAccounts: localWallets,
      defaultWalletAccountId: localWallets[0]?.id,
      env: { region: 'us-east-1' },
      tuning: {},
    });
    expect(config.providerBaseUrl).toBeUndefined();
    expect(config.env.account).toBeUndefined();
  });

  it('takes the CLI environment, and context over it', () => {
    const environment = { CDK_DEFAULT_ACCOUNT: '111111111111', CDK_DEFAULT_REGION: 'eu-west-1' };

    expect(read({}, environment).env).toEqual({ account: '111111111111', region: 'eu-west-1' });
    expect(read({ account: '222222222222', region: 'me-central-1' }, environment).env).toEqual({
      account: '222222222222',
      region: 'me-central-1',
    });
  });

  it('in prod wants wallet accounts and a provider, and leaves the sandbox out', () => {
    expect(() => read({ stage: 'prod', providerBaseUrl: 'https://provider.example.com' })).toThrow(
      /walletAccounts: required in stage prod/,
    );
    expect(() => read({ stage: 'prod', walletAccounts: JSON.stringify(prodWallets) })).toThrow(
      /providerBaseUrl: required without the sandbox stack/,
    );

    const config = read({
      stage: 'prod',
      walletAccounts: JSON.stringify(prodWallets),
      providerBaseUrl: 'https://provider.example.com',
    });

    expect(config).toMatchObject({ stage: 'prod', sandbox: false, defaultWalletAccountId: 'wallet-aed' });
  });

  it('takes a key-admin role by name or ARN, and refuses anything else, naming the key', () => {
    expect(read({}).keyAdminRole).toBeUndefined();
    expect(read({ keyAdminRole: 'payments-key-admin' }).keyAdminRole).toBe('payments-key-admin');
    const arn = 'arn:aws:iam::123456789012:role/security/payments-key-admin';
    expect(read({ keyAdminRole: arn }).keyAdminRole).toBe(arn);
    for (const wrong of ['arn:aws:iam::1234:role/x', 'arn:aws:iam::123456789012:user/x', 'a role']) {
      expect(() => read({ keyAdminRole: wrong }), wrong).toThrow(
        /keyAdminRole: must be an IAM role name or ARN/,
      );
    }
  });

  it('samples every request for X-Ray in dev and 5% in prod, unless told a rate from 0 to 1', () => {
    const prod = {
      stage: 'prod',
      walletAccounts: JSON.stringify([localWallets[0]]),
      providerBaseUrl: 'https://p.example.com',
    };
    expect(read({}).traceSampleRate).toBe(1);
    expect(read(prod).traceSampleRate).toBe(0.05);
    expect(read({ ...prod, traceSampleRate: '0.2' }).traceSampleRate).toBe(0.2);
    for (const wrong of ['1.5', '-0.1', 'some'])
      expect(() => read({ traceSampleRate: wrong }), wrong).toThrow(/traceSampleRate/);
  });

  it('reads JSON from the command line and values from cdk.json alike', () => {
    const fromCli = read({
      walletAccounts: JSON.stringify(prodWallets),
      tuning: '{"LONG_WAIT_SECONDS":600}',
    });
    const fromFile = read({
      walletAccounts: prodWallets,
      tuning: { LONG_WAIT_SECONDS: '600' },
      sandbox: true,
    });

    expect(fromCli.walletAccounts).toEqual(prodWallets);
    expect(fromFile.walletAccounts).toEqual(prodWallets);
    expect(fromCli.tuning).toEqual({ LONG_WAIT_SECONDS: '600' });
    expect(fromFile.tuning).toEqual({ LONG_WAIT_SECONDS: '600' });
  });

  it("speaks the spec's dialect unless told the provider's (providerDialect)", () => {
    expect(read({}).providerDialect).toBe('spec');
    expect(read({ providerDialect: 'dapi-v2' }).providerDialect).toBe('dapi-v2');
  });

  it("takes the inline transfer's action in tuning, for the orchestrator's functions", () => {
    expect(read({ tuning: '{"PROVIDER_AUTOFLOW_ACTION":"deposit"}' }).tuning).toEqual({
      PROVIDER_AUTOFLOW_ACTION: 'deposit',
    });
  });

  it.each([
    [{ stage: 'staging' }, /stage/],
    [{ sandbox: 'yes' }, /sandbox/],
    [{ providerBaseUrl: 'not a url' }, /providerBaseUrl/],
    [{ providerDialect: 'v2' }, /providerDialect/],
    // Secrets travel there: https only in AWS.
    [{ providerBaseUrl: 'http://provider.example.com' }, /providerBaseUrl: must be an https:\/\/ URL/],
    [{ webhookUrl: 'http://hooks.wallet.example.com' }, /webhookUrl: must be an https:\/\/ URL/],
    [{ walletAccounts: '[{"id":"w"}]' }, /walletAccounts/],
    [{ walletAccounts: 'not json' }, /walletAccounts: must be JSON/],
    [{ defaultWalletAccountId: 'wallet-usd' }, /defaultWalletAccountId: wallet-usd is not one of/],
    [{ walletAccounts: JSON.stringify([...prodWallets, ...prodWallets]) }, /ids must be unique/],
    [{ account: '1234' }, /account/],
    [{ alarmEmail: 'nobody' }, /alarmEmail/],
    [{ tuning: '{"WEBHOOK_SECRET":"whsec_x"}' }, /tuning/],
    [{ tuning: '{"PROVIDER_TIMEOUT_MS":60000}' }, /tuning.PROVIDER_TIMEOUT_MS/],
    [{ tuning: '{"LONG_WAIT_SECONDS":901}' }, /tuning.LONG_WAIT_SECONDS/],
    [{ tuning: '{"PROVIDER_AUTOFLOW_ACTION":" "}' }, /tuning.PROVIDER_AUTOFLOW_ACTION/],
    [{ tuning: `{"PROVIDER_AUTOFLOW_ACTION":"${'a'.repeat(65)}"}` }, /tuning.PROVIDER_AUTOFLOW_ACTION/],
    // Below twice the step functions' timeout, the sweeper could re-drive a step still running.
    [{ tuning: '{"STALL_AFTER_SECONDS":90}' }, /tuning.STALL_AFTER_SECONDS/],
    [
      {
        walletAccounts: JSON.stringify(
          Array.from({ length: 20 }, (_, i) => ({ ...prodWallets[0], id: `w${i}` })),
        ),
      },
      /walletAccounts: over 2,500 characters/,
    ],
  ])('refuses %j, naming the key', (context, message) => {
    expect(() => read(context)).toThrow(message);
  });
});

describe('function settings', () => {
  const topologyHandlers = [
    ...[depositsApi, sandboxApi, operatorApi].flatMap((api) => [
      ...api.routes.map((route) => route.handler),
      api.defaultHandler,
    ]),
    ...Object.values(queues).map((spec) => spec.handler),
    sweeper.handler,
    outbox.handler,
  ];

  it('has exactly one entry per topology handler, and no other', () => {
    expect(new Set(topologyHandlers).size).toBe(topologyHandlers.length);
    expect([...functionSettings.keys()].sort()).toEqual([...topologyHandlers].sort());
  });

  it('gives every queue an age alarm threshold', () => {
    expect(Object.keys(queueAlarms).sort()).toEqual(Object.keys(queues).sort());
  });

  it('lets a step finish one provider call inside its timeout, and ensure-beneficiary two', () => {
    for (const spec of Object.values(queues)) {
      expect(settingsOf(spec.handler).timeoutSeconds * 1000).toBeGreaterThan(
        limits.providerTimeoutMs + 2_000,
      );
    }
    // The list, then the creation: each may take the whole provider timeout.
    expect(settingsOf(queues.ensureBeneficiary.handler).timeoutSeconds * 1000).toBeGreaterThan(
      2 * limits.providerTimeoutMs + 2_000,
    );
    // The sweeper never re-drives a step that may still be running.
    const longest = Math.max(...Object.values(queues).map((spec) => settingsOf(spec.handler).timeoutSeconds));
    expect(limits.minStallAfterSeconds).toBeGreaterThanOrEqual(2 * longest);
  });

  it("fits every injected fault of the sandbox inside its functions' timeout, with room for the operation", () => {
    for (const handler of [...sandboxApi.routes.map((route) => route.handler), sandboxApi.defaultHandler]) {
      const timeoutMs = settingsOf(handler).timeoutSeconds * 1000;
      expect(timeoutMs, handler).toBeLessThanOrEqual(30_000);
      expect(timeoutMs - faultWaitBudgetMs, handler).toBeGreaterThanOrEqual(5_000);
    }
    expect(limits.sandboxTimeoutMs).toBeLessThanOrEqual(faultWaitBudgetMs);
    expect(read({ tuning: { SANDBOX_TIMEOUT_MS: faultWaitBudgetMs } }).tuning.SANDBOX_TIMEOUT_MS).toBe(
      String(faultWaitBudgetMs),
    );
    expect(() => read({ tuning: { SANDBOX_TIMEOUT_MS: faultWaitBudgetMs + 1 } })).toThrow(
      /SANDBOX_TIMEOUT_MS/,
    );
  });
});
