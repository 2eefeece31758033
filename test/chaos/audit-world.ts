/**
 * The chaos audit's tests' world: the banks and the wallet, a clean outcome of two deposits, and the
 * ways a test plants a broken invariant in it (a creation, a note, decoys, an unknown outcome, a source).
 */
import { localWallets } from '#infra/local/wallets';
import { sandboxBanks } from '#shared/sandbox/catalog';
import type { AuditInput, DepositRun, Receiver } from './audit.ts';
import type { Connection, Delivery, TableItem } from './clients.ts';
import { decoyBeneficiary } from './decoys.ts';
import { banksOf, type PlannedDeposit, type PlannedUser } from './plan.ts';

export const banks = banksOf(
  sandboxBanks.map(({ bankId, accountsMetadata }) => ({ bankId, accountsMetadata })),
);
/** The one of `found` that exists, else the run stops here, naming `what`. */
function found<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`no ${what}`);
  return value;
}

export const bank = found(
  banks.find((candidate) => candidate.bankId === 'SANDBOX_BENEFICIARY'),
  'SANDBOX_BENEFICIARY bank',
);
export const maskedBank = found(
  banks.find((candidate) => candidate.bankId === 'SANDBOX_MASKED'),
  'SANDBOX_MASKED bank',
);
export const wallet = found(
  localWallets.find((candidate) => candidate.id === bank.walletAccountID),
  `local wallet ${bank.walletAccountID}`,
);

/** The wallet's account as the bank records a transfer's receiver. */
export const walletReceiver: Receiver = {
  beneficiaryID: 'ben_1',
  name: wallet.name,
  iban: wallet.iban,
  swiftCode: wallet.swiftCode,
};

export const connection: Connection = {
  connectionID: 'conn_1',
  accessToken: `conn_1.at_${'A'.repeat(43)}`,
  userSecret: `us_${'B'.repeat(43)}`,
  accountId: 'acc_1',
  openingBalance: 100_000,
};

export function planned(index: number, amountMinor: number): PlannedDeposit {
  return {
    index,
    userIndex: 0,
    idempotencyKey: `key-${index}`,
    amountMinor,
    amount: amountMinor / 100,
    belowMinimum: false,
    startDelayMs: 0,
    answers: 'answer',
    answerDelayMs: 0,
    duplicates: false,
    repeatCreate: false,
    webhookRefusals: 0,
    operatorRedrives: false,
  };
}

/** Two deposits of one user, both done, each with its one transfer, each heard. */
export function cleanOutcome(): AuditInput {
  const deposits = [planned(0, 2_500), planned(1, 3_000)];
  const user: PlannedUser = {
    index: 0,
    bank: bank as PlannedUser['bank'],
    providerFaults: [],
    crashes: [],
    deposits,
  };
  const runs: DepositRun[] = deposits.map((deposit) => ({
    plan: deposit,
    id: `dep_${deposit.index}`,
    createRetries: 0,
    asked: false,
    answersSent: 0,
    answerErrors: 0,
    readErrors: 0,
    duplicateMessages: 0,
    copies: [],
    operatorRedrives: {},
    outcome: 'final',
    findings: [],
  }));
  const items: TableItem[] = deposits.map((deposit) => ({
    pk: `DEPOSIT#dep_${deposit.index}`,
    sk: 'DEPOSIT',
    id: `dep_${deposit.index}`,
    status: 'done',
    step: 'completed',
    version: 3,
    reference: `TRF${deposit.index}`,
    amountMinor: deposit.amountMinor,
    currency: 'AED',
    history: [{ step: 'completed', status: 'done', at: 0 }],
  }));
  const deliveries: Delivery[] = deposits.map((deposit) => ({
    id: `dep_${deposit.index}.v3`,
    type: 'deposit.done',
    depositId: `dep_${deposit.index}`,
    data: { reference: `TRF${deposit.index}` },
    verified: true,
  }));
  return {
    plan: { seed: 1, banks, users: [user], deposits },
    users: [{ plan: user, connection }],
    runs,
    items,
    ledgers: new Map([
      [
        0,
        {
          accounts: [{ id: 'acc_1', balance: 99_945, currency: 'AED' }],
          transfers: [
            { reference: 'TRF0', amount: 25, currency: 'AED', createdAt: '', receiver: walletReceiver },
            { reference: 'TRF1', amount: 30, currency: 'AED', createdAt: '', receiver: walletReceiver },
          ],
          faults: [],
          // The first deposit created the wallet's beneficiary; the second found it on record.
          beneficiaryCreations: [creation('created')],
        },
      ],
    ]),
    deliveries,
    beneficiaries: new Map([[0, 1]]),
    secrets: [
      'sandbox-local-app-secret',
      connection.accessToken.split('.')[1] as string,
      connection.userSecret,
    ],
    otps: ['123456'],
    output: 'chaos: a line of progress\n{"level":"WARN","message":"sandbox fault injected"}\n',
    now: 1_000_000,
    parkAfterMs: 600_000,
    scheduledDeposits: new Set(),
    sources: [],
    crashes: { fired: {}, armed: 0, deaths: [], lostAnswers: [] },
    stallAfterMs: 8_000,
  };
}

/** A call of the bank's beneficiary creation for the wallet's account, as the sandbox records it. */
export function creation(outcome: 'created' | 'refused', type?: string) {
  return {
    jobID: `job_${outcome}`,
    at: '2026-01-01T00:00:00.000Z',
    iban: wallet?.iban ?? '',
    outcome,
    ...(type ? { type } : {}),
    ...(outcome === 'created' ? { beneficiaryID: 'ben_1' } : {}),
  };
}

/** Deposit 1's history holds this note (after its creation). */
export function noted(input: AuditInput, note: string) {
  (input.items[1] as TableItem).history = [
    { step: 'transfer', status: 'initialized', at: 0, note },
    { step: 'completed', status: 'done', at: 1 },
  ];
}

/**
 * The user banks at SANDBOX_MASKED with both decoys registered beside the wallet's beneficiary
 * (`ben_1`), and deposit 1 failed BENEFICIARY_AMBIGUOUS, nothing moved for it, its failure heard.
 */
export function decoyedAndAmbiguous(input: AuditInput) {
  const user = input.plan.users[0] as PlannedUser;
  user.bank = maskedBank as PlannedUser['bank'];
  user.decoys = ['account-number', 'iban'];
  (input.users[0] as AuditInput['users'][number]).decoys = user.decoys.map((kind, index) => ({
    kind,
    iban: decoyBeneficiary(kind, wallet as (typeof localWallets)[number]).iban,
    id: `ben_decoy_${index}`,
  }));
  failedUnmoved(input, 'BENEFICIARY_AMBIGUOUS', 'nothing tells them apart');
}

/** Deposit 1 failed TRANSFER_OUTCOME_UNKNOWN, nothing moved for it, its failure heard. */
export function unknownOutcome(input: AuditInput) {
  failedUnmoved(input, 'TRANSFER_OUTCOME_UNKNOWN', 'interrupted');
}

/** Deposit 1 failed with `type`: its transfer gone from the ledger, its 30 back, its failure heard. */
function failedUnmoved(input: AuditInput, type: string, msg: string) {
  Object.assign(input.items[1] as TableItem, {
    status: 'failed',
    reference: undefined,
    failure: { type, msg },
  });
  input.ledgers.get(0)?.transfers.splice(1, 1);
  const account = input.ledgers.get(0)?.accounts[0];
  if (account) account.balance += 30;
  input.deliveries[1] = { ...(input.deliveries[1] as Delivery), type: 'deposit.failed', data: { type } };
}

/** User 0 has a payment source, ready and heard; deposit 0 followed its wake-up, moving `lateS` after it. */
export function withSource(input: AuditInput, lateS: number) {
  const instant = 500_000;
  (input.items[0] as TableItem).history = [
    {
      step: 'ensure-beneficiary',
      status: 'initialized',
      at: 400_000,
      note: `waiting for the payment source's wake-up at ${new Date(instant).toISOString()}`,
    },
    { step: 'completed', status: 'done', at: instant + lateS * 1000 },
  ];
  input.items.push({
    pk: 'DEPOSIT#src_0',
    sk: 'DEPOSIT',
    id: 'src_0',
    status: 'done',
    step: 'completed',
    version: 4,
    amountMinor: 0,
    currency: 'AED',
    history: [],
  });
  input.sources.push({ userIndex: 0, id: 'src_0', scheduleDeleted: true, outcome: 'final', findings: [] });
  input.deliveries.push({
    id: 'src_0.v4',
    type: 'source.ready',
    depositId: 'src_0',
    data: {},
    verified: true,
  });
}
