/**
 * The plan of a chaos run, a pure function of the seed, the number of deposits, the sandbox's banks
 * and the dialect the orchestrator speaks to the provider: the users (each on a bank, with one or
 * several deposits), each deposit's amount and key, who answers the bank's questions and who never
 * does, the faults each user's connection suffers (the sandbox's fault rules and the local crash
 * points, chosen in `faults.ts`), and the decoys registered beside the wallet at a bank that masks
 * accounts (`decoys.ts`). The harness carries it out; the audit judges the outcome against it.
 */
import { localWallets } from '#infra/local/wallets';
import { type CurrencyCode, fromMinorUnits, isCurrencyCode, toMinorUnits } from '#shared/money';
import { type DialectName, dialects } from '#shared/provider/interface/dialects';
import { periodMs } from '#shared/provider/interface/period';
import type { AccountsMetadata } from '#shared/provider/interface/schemas';
import { findBank } from '#shared/sandbox/catalog';
import { type DecoyKind, decoyKinds } from './decoys.ts';
import { type DynamoDbFault, planDynamoDbFaults } from './dynamodb-faults.ts';
import { bankDown, readsBack } from './fault-kinds.ts';
import { type CrashRule, faultsFor, freshCoverage, type ProviderFault } from './faults.ts';
import { planRelayFaults, planRepeats } from './late-draws.ts';
import { randomStream } from './random.ts';

export interface Bank {
  bankId: string;
  metadata: AccountsMetadata;
  currency: CurrencyCode;
  walletAccountID: string;
  /** The bank's minimum for a transfer from another bank (the wallet's), in minor units. */
  minimumMinor: number;
  coolDownMs: number;
  /** Whether the bank wants the wallet registered as a beneficiary. */
  beneficiaries: boolean;
  hidesNewBeneficiaries: boolean;
  /** A cool-down longer than any run: deposits there wait, deliberately, with a wake-up armed. */
  longCoolDown: boolean;
  /** Its beneficiary list shows account numbers masked to their last four characters. */
  masksAccounts: boolean;
}

export interface PlannedDeposit {
  /** Its index in the run, 0 to N - 1. */
  index: number;
  userIndex: number;
  idempotencyKey: string;
  amountMinor: number;
  /** In major units, as the API takes it. */
  amount: number;
  /** Below the bank's minimum: must fail AMOUNT_BELOW_MINIMUM, nothing sent. */
  belowMinimum: boolean;
  /** After the user is ready; the user's deposits overlap. */
  startDelayMs: number;
  /**
   * A repeat: it starts once the user's other deposits (and source) have ended, as a wallet's
   * next top-up does, so that it may take the known route (its bank and beneficiary remembered).
   */
  afterOthers?: true;
  /** Its next event after its creation cannot be relayed: set aside in the relay's DLQ, redriven after the run. */
  relayFault?: true;
  /** `never`: the bank's questions go unanswered, deliberately, until they expire. */
  answers: 'answer' | 'never';
  answerDelayMs: number;
  /** Copies of its step messages sent straight to the step queues: duplicated, delayed, re-ordered. */
  duplicates: boolean;
  /** The same create request again, at once: it must answer the same deposit. */
  repeatCreate: boolean;
  /** The webhook receiver refuses this many of its deliveries. */
  webhookRefusals: number;
  /** Its owner cancels it this long after it was accepted, racing whatever step it is at. */
  cancelAfterMs?: number;
  /** An operator re-drives it at random moments while it is in flight. */
  operatorRedrives: boolean;
}

/**
 * A payment source its user prepares at a bank with a cool-down: first (the deposits start once it
 * cools down, and follow its wake-up), or alongside deposits already waiting.
 */
export interface PlannedSource {
  when: 'first' | 'alongside';
  /** Its bank is down for its user (the metadata never answers): it fails, as do the user's deposits. */
  fails: boolean;
  idempotencyKey: string;
  /** Its owner cancels it this long after it began to cool down. */
  cancelAfterMs?: number;
  /** Its own wake-up schedule is deleted once armed: the sweeper must wake it, and its followers. */
  losesSchedule: boolean;
}

export interface PlannedUser {
  index: number;
  bank: Bank;
  source?: PlannedSource;
  providerFaults: ProviderFault[];
  crashes: CrashRule[];
  /** Faults of its connection's DynamoDB calls (`dynamodb-faults.ts`). */
  dynamoDbFaults?: DynamoDbFault[];
  /**
   * Its bank carries transfers out slower than the provider holds a call (`SLOW_TRANSFER_SECONDS`
   * in `context.ts`): in a dialect that sends no `sync` (`dapi-v2`), where a transfer the bank
   * carries out at once is answered `done` and never read back, a user whose faults hit the
   * operation read needs its transfers read back for them to go off.
   */
  slowTransfers?: true;
  deposits: PlannedDeposit[];
  /** At a bank that masks accounts: decoys registered beside the wallet before its deposits run. */
  decoys?: DecoyKind[];
}

export interface ChaosPlan {
  seed: number;
  /** The dialect the orchestrator speaks to the provider (`PROVIDER_DIALECT`); `spec` when absent. */
  dialect?: DialectName;
  banks: Bank[];
  users: PlannedUser[];
  deposits: PlannedDeposit[];
}

export interface PlanSettings {
  deposits: number;
  seed: number;
  /** The orchestrator's provider timeout: a timeout fault hangs past it. */
  providerTimeoutMs: number;
  /** The dialect the orchestrator speaks (`PROVIDER_DIALECT`): the fault rules name its paths. */
  dialect: DialectName;
}

/** The banks of GET /sandbox/banks, with what the plan needs to know of each. */
export function banksOf(catalog: { bankId: string; accountsMetadata: AccountsMetadata }[]): Bank[] {
  return catalog.map(({ bankId, accountsMetadata }) => {
    const code = accountsMetadata.transferBounds[0]?.currency.code ?? 'AED';
    if (!isCurrencyCode(code)) throw new Error(`bank ${bankId}: unknown currency ${code}`);
    const wallet = localWallets.find((candidate) => candidate.currency === code);
    if (!wallet) throw new Error(`no local wallet account in ${code} for bank ${bankId}`);
    const local = accountsMetadata.transferBounds.find(
      (bound) => bound.type === 'local' && bound.currency.code === code,
    );
    const coolDownMs = periodMs(accountsMetadata.beneficiaryCoolDownPeriod);
    return {
      bankId,
      metadata: accountsMetadata,
      currency: code,
      walletAccountID: wallet.id,
      minimumMinor: toMinorUnits(local?.minimum ?? 0, code),
      coolDownMs,
      beneficiaries: accountsMetadata.isCreateBeneficiaryEndpointRequired,
      hidesNewBeneficiaries: !accountsMetadata.willNewlyAddedBeneficiaryExistBeforeCoolDownPeriod,
      longCoolDown: coolDownMs >= 3_600_000,
      masksAccounts: findBank(bankId)?.masksAccounts ?? false,
    };
  });
}

/** Shares of the run: how often each thing happens (the faults' shares are in `faults.ts`). */
const share = {
  /** Users with a single deposit; the others have 2 to 6. */
  singleDeposit: 0.3,
  /** Of the deposits at a bank that asks questions. */
  neverAnswered: 0.12,
  belowMinimum: 0.02,
  duplicates: 0.2,
  repeatCreate: 0.1,
  webhookRefusals: 0.1,
  cancelled: 0.06,
  operatorRedrives: 0.1,
  /** Of the users at a bank with a cool-down: they prepare a payment source. */
  source: 0.5,
  sourceAlongside: 0.5,
  sourceCancelled: 0.2,
  sourceLosesSchedule: 0.25,
  /** Of the users at a bank that masks accounts, once every kind of decoy is placed: one decoy. */
  decoy: 0.5,
};

/** Whether a bank has a cool-down a payment source can wait out for its deposits. */
export const coolsDown = (bank: Bank) => bank.beneficiaries && bank.coolDownMs > 0;

export function planRun(settings: PlanSettings, banks: Bank[]): ChaosPlan {
  const { seed } = settings;
  const dialect = dialects[settings.dialect];
  const random = randomStream(seed, 'plan');
  // Every bank has users; a bank whose cool-down outlasts the run has fewer (its deposits only wait).
  const weights = banks.map((bank) => [bank, bank.longCoolDown ? 0.3 : 1] as const);
  const order = random.shuffle(banks);
  const users: PlannedUser[] = [];
  const deposits: PlannedDeposit[] = [];
  const coverage = freshCoverage(dialect);
  // The kinds of payment source every run meets, even a small one.
  const sourceKinds = [
    { when: 'first', losesSchedule: true },
    { when: 'alongside', cancelled: true },
    { when: 'first', fails: true },
    { when: 'alongside', losesSchedule: true },
  ] as { when: 'first' | 'alongside'; losesSchedule?: boolean; cancelled?: boolean; fails?: boolean }[];
  // The decoys every run meets: each user at a bank that masks accounts gets them all until one whose
  // deposits surely reach the beneficiary (`meetsDecoys`) has.
  let decoysToPlace: DecoyKind[] = [...decoyKinds];
  while (deposits.length < settings.deposits) {
    const index = users.length;
    const userRandom = randomStream(seed, 'user', index);
    const bank = index < order.length ? (order[index] as Bank) : userRandom.weighted(weights);
    const wanted = userRandom.chance(share.singleDeposit) ? 1 : userRandom.int(2, 6);
    const count = Math.min(wanted, settings.deposits - deposits.length);
    const amounts = new Set<number>();
    const userDeposits: PlannedDeposit[] = [];
    for (let n = 0; n < count; n += 1) {
      const depositIndex = deposits.length + n;
      const belowMinimum = userRandom.chance(share.belowMinimum);
      let amountMinor: number;
      // Distinct amounts per user: each transfer in the user's ledger names its deposit by amount.
      do {
        amountMinor = belowMinimum
          ? userRandom.int(1, Math.max(1, bank.minimumMinor - 1))
          : bank.minimumMinor + userRandom.int(0, 40 * Math.max(bank.minimumMinor, 100));
      } while (amounts.has(amountMinor));
      amounts.add(amountMinor);
      const asks = bankAsks(bank);
      userDeposits.push({
        index: depositIndex,
        userIndex: index,
        idempotencyKey: `chaos-${seed}-${depositIndex}`,
        amountMinor,
        amount: fromMinorUnits(amountMinor, bank.currency),
        belowMinimum,
        startDelayMs: userRandom.int(0, 1_500),
        answers: asks && userRandom.chance(share.neverAnswered) ? 'never' : 'answer',
        answerDelayMs: userRandom.int(0, 1_500),
        duplicates: userRandom.chance(share.duplicates),
        repeatCreate: userRandom.chance(share.repeatCreate),
        webhookRefusals: userRandom.chance(share.webhookRefusals) ? userRandom.int(1, 3) : 0,
        ...(userRandom.chance(share.cancelled) ? { cancelAfterMs: userRandom.int(0, 8_000) } : {}),
        operatorRedrives: userRandom.chance(share.operatorRedrives),
      });
    }
    // Until every kind of source has been met, every user at a bank with a cool-down prepares one.
    // A source that loses its schedule is forced where its schedule lives long (the day-long bank):
    // a short cool-down's may fire before it can be lost.
    const kindIndex = sourceKinds.findIndex(
      (kind) => coolsDown(bank) && (!kind.losesSchedule || bank.longCoolDown),
    );
    const forced = kindIndex >= 0 ? sourceKinds.splice(kindIndex, 1)[0] : undefined;
    const source: PlannedSource | undefined =
      forced || (coolsDown(bank) && userRandom.chance(share.source))
        ? {
            when: forced?.when ?? (userRandom.chance(share.sourceAlongside) ? 'alongside' : 'first'),
            idempotencyKey: `chaos-${seed}-source-${index}`,
            ...(forced?.cancelled || (!forced && userRandom.chance(share.sourceCancelled))
              ? { cancelAfterMs: userRandom.int(1_000, 4_000) }
              : {}),
            losesSchedule: forced?.losesSchedule ?? userRandom.chance(share.sourceLosesSchedule),
            fails: forced?.fails ?? false,
          }
        : undefined;
    // A source that must fail: the bank is down for its user, and that fault comes alone.
    const faults = source?.fails
      ? { providerFaults: [bankDown(dialect)], crashes: [] }
      : faultsFor(userRandom, coverage, {
          bank,
          dialect,
          providerTimeoutMs: settings.providerTimeoutMs,
          withSource: source !== undefined,
          deposits: userDeposits,
        });
    // Without `sync`, only a transfer the bank takes its time over is read back, where these go off.
    const slowTransfers =
      !dialect.sendsSync && faults.providerFaults.some((fault) => readsBack(fault, dialect));
    // Drawn last: the user's other choices stay those of the same seed without decoys.
    let decoys: DecoyKind[] | undefined;
    if (bank.masksAccounts && decoysToPlace.length > 0) {
      decoys = decoysToPlace;
      if (meetsDecoys(faults.providerFaults, userDeposits)) decoysToPlace = [];
    } else if (bank.masksAccounts && userRandom.chance(share.decoy)) {
      decoys = [userRandom.pick(decoyKinds)];
    }
    users.push({
      index,
      bank,
      ...(source ? { source } : {}),
      ...faults,
      ...(slowTransfers ? { slowTransfers } : {}),
      deposits: userDeposits,
      ...(decoys ? { decoys } : {}),
    });
    deposits.push(...userDeposits);
  }
  planDynamoDbFaults(seed, users);
  planRepeats(seed, users);
  planRelayFaults(seed, users);
  return { seed, dialect: settings.dialect, banks, users, deposits };
}

/**
 * Whether a user's deposits surely reach its beneficiary, past the decoys: its bank is not down for
 * it, and two of its deposits are neither below the minimum nor cancelled.
 */
function meetsDecoys(faults: readonly ProviderFault[], deposits: readonly PlannedDeposit[]): boolean {
  if (faults.some((fault) => fault.kind === 'metadata-down')) return false;
  const reaching = deposits.filter((deposit) => !deposit.belowMinimum && deposit.cancelAfterMs === undefined);
  return reaching.length >= 2;
}

/** Whether the bank asks its caller questions (one-time passwords) on the way of a deposit. */
export function bankAsks(bank: Bank): boolean {
  return bank.bankId.includes('OTP');
}
