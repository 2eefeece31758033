import { sandboxBanks } from '#shared/sandbox/catalog';
import { chaosEnv } from './context.ts';
import { banksOf, planRun } from './plan.ts';

const banks = banksOf(sandboxBanks.map(({ bankId, accountsMetadata }) => ({ bankId, accountsMetadata })));
const plan = planRun(
  { deposits: 1000, seed: Number(process.argv[2]), providerTimeoutMs: Number(chaosEnv.PROVIDER_TIMEOUT_MS) },
  banks,
);
for (const index of process.argv.slice(3).map(Number)) {
  const user = plan.users[index];
  const { bank, ...rest } = user as any;
  console.log(
    JSON.stringify(
      {
        index,
        bank: bank.bankId,
        ...rest,
        deposits: plan.deposits.filter((d: any) => d.user === index || d.userIndex === index),
      },
      null,
      0,
    ).slice(0, 3000),
  );
}
