/**
 * A deposit's world for unit tests: the fakes of every port, a manual clock, settings and wallets,
 * deposits at any step, provider answers, and each handler's context built from them by its line of
 * `reach.ts` (`handler-fakes.ts`), with exactly the ports (and queues, and schedule targets) its
 * handler has.
 */

import { localWallets } from '#infra/local/wallets';
import type { BankFacts, Deposit, WorkStep } from '#shared/deposits/model/deposit';
import { walletAccounts, walletBook } from '#shared/deposits/model/wallets';
import type { DepositSettings } from '#shared/deposits/ports/settings';
import type { ReachName } from '#shared/deposits/reach';
import type { StartDeposit } from '#shared/deposits/requests/start';
import { ProviderRefusal, ProviderUnknownOutcome, type UnknownReason } from '#shared/provider/client';
import type { AccountsMetadata, UserInput } from '#shared/provider/interface/schemas';
import { keyedDigests } from '#shared/secrets';
import {
  FakeDepositsTable,
  FakeProvider,
  type FakeScheduler,
  FakeVault,
  RecordingObserver,
  StreamedEvents,
} from './deposit-fakes.ts';
import { type FakeOptions, type Fakes, fakeContext } from './handler-fakes.ts';
import { ManualClock } from './manual-clock.ts';
import { FakeDeliveryRecords, FixedQueueDepths } from './operator-fakes.ts';

export const settings: DepositSettings = {
  longWaitMs: 900_000,
  leaseMs: 15_000,
  leasePatienceMs: 2_000,
  inputTtlMs: 240_000,
  maxRetries: 3,
  coolDownRetryMs: 60_000,
  maxRedrives: 6,
  stallAfterMs: 120_000,
  claimStaleMs: 60_000,
  bankMemoryMs: 3_600_000,
  sourceBankMemoryMs: 30 * 86_400_000,
  maxPolls: 30,
  pollCapMs: 900_000,
};

export const credentials = { accessToken: 'token-1', appSecret: 'app-secret', userSecret: 'user-secret' };
/** The owner key of the world (as OWNER_KEY would give it: 32 bytes), and the keyed digests under it. */
export const ownerSecretKey = Buffer.alloc(32, 'unit-test-owner-key');
export const ownerDigests = keyedDigests(ownerSecretKey);
/** The world's connection's key: the keyed digest of its access token. */
export const ownerKey = ownerDigests.of(credentials.accessToken);
/** The keyed digest of its user secret, and the key its bank memory is kept under (token and secret). */
export const readerKey = ownerDigests.of(credentials.userSecret);
export const bankKey = `${ownerKey}#${readerKey}`;

/** A create request of the world's connection: 25.50 from `acc-1`, key `key-1`, unless overridden. */
export const startRequest = (overrides: Partial<StartDeposit> = {}): StartDeposit => ({
  ...credentials,
  idempotencyKey: 'key-1',
  amount: 25.5,
  senderID: 'acc-1',
  ...overrides,
});

/** Bank facts by the sandbox's scenarios. */
export const banks = {
  beneficiary: bank({ isCreateBeneficiaryEndpointRequired: true }),
  noBeneficiary: bank({ isCreateBeneficiaryEndpointRequired: false }),
  coolDown: bank({ isCreateBeneficiaryEndpointRequired: true, coolDownMs: 3_600_000 }),
  hiddenCoolDown: bank({
    isCreateBeneficiaryEndpointRequired: true,
    coolDownMs: 86_400_000,
    hidesNewBeneficiaries: true,
  }),
};

function bank(facts: Partial<BankFacts>): BankFacts {
  return {
    swiftCode: 'SBXBAEAD',
    bankName: 'Sandbox Bank',
    isCreateBeneficiaryEndpointRequired: true,
    hidesNewBeneficiaries: false,
    coolDownMs: 0,
    ...facts,
  };
}

export const question: UserInput[] = [{ id: 'otp', index: 0, query: 'One-time password', answer: '' }];

/** The provider's answer that it accepted a call as operation `id`, not carried out yet. */
export const initialized = (id: string) => ({ status: 'initialized' as const, id, response: {} });
/** That question as a deposit keeps it: id, index and query, no answer. */
export const asked = question.map(({ id, index, query }) => ({ id, index, query }));

/** Waiting out the cool-down of beneficiary `ben-1` until `until` (the fields of the deposit's kind). */
export function coolingUntil(until: number) {
  return {
    step: 'wait-cooldown',
    bank: banks.coolDown,
    beneficiaryId: 'ben-1',
    cooldownUntil: until,
  } as const;
}

/** Provider answers and refusals, as the provider client returns and throws them. */
export const answers = {
  done: <T>(response: T, id = 'op-1') => ({ status: 'done' as const, id, response }),
  question: (id = 'op-q') => ({
    status: 'user_input_required' as const,
    id,
    userInputs: question,
    response: {},
  }),
  /** A refusal; naming the operation `operationId` when given (a refusal read back names its own). */
  refusal: (type: string, msg = type, operationId?: string) =>
    new ProviderRefusal(type, msg, 400, operationId),
  unknown: (reason: UnknownReason = 'timeout') => new ProviderUnknownOutcome(reason, 'lost'),
};

/** The beneficiary claim's key of the world's connection and its default wallet account. */
export const claimKey = `${ownerKey}#wallet-aed`;

/** A listBeneficiaries answer: the wallet's beneficiary (approved) as `id` when given, else none. */
export function walletListing(id?: string) {
  const wallet = { name: 'Acme Wallet LLC', accountNumber: '0331234567890123456' };
  const beneficiaries = id ? [{ ...wallet, id, type: 'local', status: 'approved' }] : [];
  return answers.done({ jobID: 'j', success: true, status: 'done', beneficiaries });
}

/** The bank metadata the provider answers (resolve-bank), with `overrides`. */
export function metadata(overrides: Partial<AccountsMetadata> = {}) {
  const accountsMetadata: AccountsMetadata = {
    swiftCode: 'SBXBAEAD',
    sortCode: null,
    bankName: 'Sandbox Bank',
    branchName: 'Main',
    branchAddress: 'Main Street',
    address: { line1: 'a', line2: 'b', line3: 'c' },
    transferBounds: [{ minimum: 10, currency: { code: 'AED', name: 'Dirham' }, type: 'local' }],
    beneficiaryCoolDownPeriod: { value: 0, unit: 'hrs' },
    isCreateBeneficiaryEndpointRequired: true,
    willNewlyAddedBeneficiaryExistBeforeCoolDownPeriod: true,
    country: { code: 'AE', name: 'United Arab Emirates' },
    transactionRange: { unit: 'days', value: 30 },
    ...overrides,
  };
  return answers.done({ jobID: 'job-1', success: true, status: 'done', accountsMetadata });
}

/**
 * What every event of a deposit carries besides its status, step and version: its money,
 * sender and times (the deposit as `world().deposit` makes it, at the clock's `now`).
 */
export function eventFields(deposit: Pick<Deposit, 'createdAt'>, now: number) {
  return {
    amount: 25.5,
    currency: 'AED',
    senderID: 'acc-1',
    createdAt: new Date(deposit.createdAt).toISOString(),
    updatedAt: new Date(now).toISOString(),
  };
}

export function world() {
  const clock = new ManualClock();
  const table = new FakeDepositsTable();
  const events = new StreamedEvents(table);
  const observer = new RecordingObserver();
  const provider = new FakeProvider();
  const vault = new FakeVault();
  const wallets = walletBook(walletAccounts(localWallets), 'wallet-aed');
  const fakes: Fakes = {
    table,
    clock,
    settings,
    observer,
    provider,
    vault,
    wallets,
    ownerDigests,
    deliveries: new FakeDeliveryRecords(),
    depths: new FixedQueueDepths([]),
    approvalAbove: {},
  };
  /** Handler `name`'s context, from its line of `reach.ts` (`handler-fakes.ts`). */
  const context = <H extends ReachName>(name: H, options?: FakeOptions) => fakeContext(fakes, name, options);

  /** The contexts the tests use most, by what they do. */
  const contexts = {
    resolveBank: () => context('steps-resolve-bank'),
    ensureBeneficiary: () => context('steps-ensure-beneficiary'),
    waitCooldown: () => context('steps-wait-cooldown'),
    transfer: () => context('steps-transfer'),
    reconcile: () => context('steps-reconcile'),
    start: () => context('deposits-create'),
    /** The answer route's: a repeated create's resumption, by the deposit's id. */
    answer: () => context('deposits-answer'),
    /** The cancel, deleting the schedules of `armed` (a step's, that armed them) when given. */
    cancel: (armed?: FakeScheduler<WorkStep>) => context('deposits-cancel', { armed }),
    read: () => context('deposits-get'),
    list: () => context('deposits-list'),
    sweep: () => context('steps-sweeper'),
  };

  let sequence = 0;
  /** A deposit as the earlier steps left it, stored in the table. */
  async function deposit(overrides: Partial<Deposit> = {}): Promise<Deposit> {
    sequence += 1;
    const id = overrides.id ?? `dep_${sequence}`;
    const now = clock.now();
    return table.put({
      id,
      ownerKey,
      readerKey,
      idempotencyKey: `key-${sequence}`,
      fingerprint: 'fingerprint',
      status: 'initialized',
      step: 'resolve-bank',
      version: 0,
      amountMinor: 2550,
      currency: 'AED',
      senderId: 'acc-1',
      walletAccountId: 'wallet-aed',
      sealedCredentials: await vault.seal('credentials', id, credentials),
      stepCounters: { retries: 0 },
      history: [
        { step: overrides.step ?? 'resolve-bank', status: overrides.status ?? 'initialized', at: now },
      ],
      createdAt: now,
      updatedAt: now,
      checkAt: now + settings.stallAfterMs,
      ...overrides,
    });
  }

  /** A payment source as the earlier steps left it (a deposit's record, `purpose: 'source'`). */
  function source(overrides: Partial<Deposit> = {}): Promise<Deposit> {
    return deposit({ purpose: 'source', amountMinor: 0, senderId: '', ...overrides });
  }

  return {
    clock,
    table,
    events,
    observer,
    provider,
    vault,
    wallets,
    fakes,
    context,
    contexts,
    deposit,
    source,
  };
}

/** The world a unit test makes with `world()`: its fakes, its clock and its contexts. */
export type World = ReturnType<typeof world>;
