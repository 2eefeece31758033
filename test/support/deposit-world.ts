/**
 * A deposit's world for unit tests: the fakes of every port, a manual clock, settings and wallets,
 * deposits at any step, provider answers, and each step's context built from them with exactly the
 * ports (and queues, and schedule targets) its handler has.
 */

import { localWallets } from '#infra/local/wallets';
import type { SweepContext } from '#shared/deposits/background/sweeper';
import type { BankFacts, Deposit, WorkStep } from '#shared/deposits/model/deposit';
import { walletAccounts, walletBook } from '#shared/deposits/model/wallets';
import type { StepQueues } from '#shared/deposits/ports/messaging';
import type { DepositSettings } from '#shared/deposits/ports/settings';
import { reach, type SendsOf, type WakesOf } from '#shared/deposits/reach';
import type { AnswerContext } from '#shared/deposits/requests/answer';
import type { OwnerCancelContext } from '#shared/deposits/requests/cancel';
import type { ListContext, ReadContext } from '#shared/deposits/requests/read';
import type { StartContext, StartDeposit } from '#shared/deposits/requests/start';
import type { EnsureBeneficiaryContext } from '#shared/deposits/steps/ensure-beneficiary';
import type { ReconcileContext } from '#shared/deposits/steps/reconcile';
import type { ResolveBankContext } from '#shared/deposits/steps/resolve-bank';
import type { TransferContext } from '#shared/deposits/steps/transfer';
import type { WaitCooldownContext } from '#shared/deposits/steps/wait-cooldown';
import { ProviderRefusal, ProviderUnknownOutcome, type UnknownReason } from '#shared/provider/client';
import type { AccountsMetadata, UserInput } from '#shared/provider/interface/schemas';
import { keyedDigests } from '#shared/secrets';
import {
  FakeDepositsTable,
  FakeProvider,
  FakeQueues,
  FakeScheduler,
  FakeVault,
  FakeWakeCancels,
  RecordingObserver,
  StreamedEvents,
} from './deposit-fakes.ts';
import { ManualClock } from './manual-clock.ts';

export const settings: DepositSettings = {
  longWaitMs: 900_000,
  leaseMs: 15_000,
  leasePatienceMs: 2_000,
  inputTtlMs: 240_000,
  maxRetries: 3,
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
 * What every event of a deposit carries besides its status, step and version (issue 32): its money,
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
  const base = { deposits: table.deposits, clock, settings, observer, leases: table.leases };
  const queues = <H extends keyof typeof reach>(name: H) =>
    new FakeQueues<SendsOf<H>>(reach[name].sends as readonly SendsOf<H>[]);
  const scheduler = <H extends keyof typeof reach>(name: H) =>
    new FakeScheduler<WakesOf<H>>(reach[name].wakes as readonly WakesOf<H>[]);
  /** What failing a deposit touches besides `base`: the claims, and a source's followers woken through `sent`. */
  const failing = <Q extends StepQueues<'transfer' | 'ensure-beneficiary'>>(sent: Q) => ({
    claims: table.claims,
    followers: { sharedWakes: table.sharedWakes, queues: sent },
  });

  const contexts = {
    resolveBank: (): ResolveBankContext & {
      queues: FakeQueues<SendsOf<'resolve-bank'>>;
      scheduler: FakeScheduler<WakesOf<'resolve-bank'>>;
    } => {
      const sent = queues('resolve-bank');
      return {
        ...base,
        ...failing(sent),
        vault,
        wallets,
        provider: provider.port,
        banks: table.banks,
        queues: sent,
        scheduler: scheduler('resolve-bank'),
        sharedWakes: table.sharedWakes,
      };
    },
    ensureBeneficiary: (): EnsureBeneficiaryContext & {
      queues: FakeQueues<SendsOf<'ensure-beneficiary'>>;
      scheduler: FakeScheduler<WakesOf<'ensure-beneficiary'>>;
    } => {
      const sent = queues('ensure-beneficiary');
      return {
        ...base,
        ...failing(sent),
        vault,
        wallets,
        provider: provider.port,
        queues: sent,
        scheduler: scheduler('ensure-beneficiary'),
        sharedWakes: table.sharedWakes,
      };
    },
    waitCooldown: (): WaitCooldownContext & {
      queues: FakeQueues<SendsOf<'wait-cooldown'>>;
      scheduler: FakeScheduler<WakesOf<'wait-cooldown'>>;
    } => {
      const sent = queues('wait-cooldown');
      return {
        ...base,
        ...failing(sent),
        queues: sent,
        scheduler: scheduler('wait-cooldown'),
        sharedWakes: table.sharedWakes,
      };
    },
    transfer: (): TransferContext & {
      queues: FakeQueues<SendsOf<'transfer'>>;
      scheduler: FakeScheduler<WakesOf<'transfer'>>;
    } => {
      const sent = queues('transfer');
      return {
        ...base,
        ...failing(sent),
        vault,
        wallets,
        provider: provider.port,
        banks: table.banks,
        queues: sent,
        scheduler: scheduler('transfer'),
        sharedWakes: table.sharedWakes,
      };
    },
    reconcile: (): ReconcileContext & {
      queues: FakeQueues<SendsOf<'reconcile'>>;
      scheduler: FakeScheduler<WakesOf<'reconcile'>>;
    } => {
      const sent = queues('reconcile');
      return {
        ...base,
        ...failing(sent),
        vault,
        provider: provider.port,
        banks: table.banks,
        queues: sent,
        scheduler: scheduler('reconcile'),
        sharedWakes: table.sharedWakes,
      };
    },
    start: (): StartContext & { queues: FakeQueues<SendsOf<'create'>> } => {
      const sent = queues('create');
      return {
        ...base,
        ...failing(sent),
        idempotency: table.idempotency,
        banks: table.banks,
        vault,
        wallets,
        queues: sent,
        ownerDigests,
      };
    },
    /** The answer route's: a repeated create's resumption, by the deposit's id. */
    answer: (): AnswerContext & { queues: FakeQueues<SendsOf<'answer'>> } => {
      const sent = queues('answer');
      return { ...base, ...failing(sent), vault, queues: sent, ownerDigests };
    },
    /** The cancel, deleting the schedules of `scheduler` (a step's, that armed them) when given. */
    cancel: (
      armed?: FakeScheduler<WorkStep>,
    ): OwnerCancelContext & {
      schedules: FakeWakeCancels;
      followers: { queues: FakeQueues<SendsOf<'cancel'>> };
    } => ({
      ...base,
      ...failing(queues('cancel')),
      schedules: new FakeWakeCancels(armed),
      ownerDigests,
    }),
    read: (): ReadContext => ({ deposits: table.deposits, clock, ownerDigests }),
    list: (): ListContext => ({ owners: table.owners, backends: table.backends, clock, ownerDigests }),
    sweep: (): SweepContext & { queues: FakeQueues<SendsOf<'sweeper'>> } => ({
      due: table.due,
      clock,
      settings,
      queues: queues('sweeper'),
    }),
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
      retries: 0,
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

  return { clock, table, events, observer, provider, vault, wallets, contexts, deposit, source };
}
