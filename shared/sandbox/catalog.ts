/**
 * The sandbox's banks: a fixed, documented catalog (outside tests depend on these ids). Each bank is
 * the spec's `accountsMetadata` plus the behaviour the metadata cannot express (the questions it asks
 * and on which operations, details on the first transfer).
 */
import type { CurrencyCode } from '#shared/money';
import type { AccountsMetadata } from '#shared/provider/interface/schemas';
import type { HttpAnswer } from './answer.ts';
import { aedMinimums, asksNothing, kuwait, metadata, otp, quickHiddenCoolDown } from './catalog-metadata.ts';
import type { QuestionId } from './questions.ts';
import type { CallLimit } from './store.ts';

/** The operations a bank may ask questions on (`transfer`: both the beneficiary and the inline form). */
export type AskedOn = 'metadata' | 'beneficiaries.list' | 'beneficiaries.create' | 'transfer' | 'balance';

export interface SandboxBank {
  bankId: string;
  currency: CurrencyCode;
  accountsMetadata: AccountsMetadata;
  /** The questions the bank asks (all at once, in this order) before each of these operations. */
  asks: Partial<Record<AskedOn, readonly QuestionId[]>>;
  /** Scenario 2: the first transfer to a beneficiary must carry the beneficiary's details. */
  detailsOnFirstTransfer: boolean;
  /** Opening balance of a new user's account, in minor units. */
  openingBalanceMinor: number;
  /** At most this many calls per connection in a rolling window; past it, 429 with Retry-After. */
  callLimit?: CallLimit;
  /** The beneficiary list shows account numbers and IBANs masked to their last four characters. */
  masksAccounts?: boolean;
  /** How the bank writes its answers: `sparse`, every envelope field, null where absent (`answer-style.ts`). */
  answers?: 'sparse';
}

export const sandboxBanks: readonly SandboxBank[] = [
  {
    bankId: 'SANDBOX_BENEFICIARY',
    currency: 'AED',
    accountsMetadata: metadata(
      { swiftCode: 'SBXBAEAD', bankName: 'Sandbox Beneficiary Bank' },
      'AED',
      aedMinimums,
    ),
    asks: asksNothing,
    detailsOnFirstTransfer: false,
    openingBalanceMinor: 10_000_000,
  },
  {
    bankId: 'SANDBOX_FIRST_DETAILS',
    currency: 'AED',
    accountsMetadata: metadata(
      { swiftCode: 'SBXFAEAD', bankName: 'Sandbox First Details Bank' },
      'AED',
      aedMinimums,
    ),
    asks: asksNothing,
    detailsOnFirstTransfer: true,
    openingBalanceMinor: 10_000_000,
  },
  {
    bankId: 'SANDBOX_NO_BENEFICIARY',
    currency: 'AED',
    accountsMetadata: metadata(
      { swiftCode: 'SBXNAEAD', bankName: 'Sandbox Direct Bank', isCreateBeneficiaryEndpointRequired: false },
      'AED',
      aedMinimums,
    ),
    asks: asksNothing,
    detailsOnFirstTransfer: false,
    openingBalanceMinor: 10_000_000,
  },
  {
    bankId: 'SANDBOX_COOLDOWN',
    currency: 'AED',
    accountsMetadata: metadata(
      {
        swiftCode: 'SBXCAEAD',
        bankName: 'Sandbox Cool-down Bank',
        beneficiaryCoolDownPeriod: { value: 24, unit: 'hrs' },
        willNewlyAddedBeneficiaryExistBeforeCoolDownPeriod: false,
      },
      'AED',
      aedMinimums,
    ),
    asks: asksNothing,
    detailsOnFirstTransfer: false,
    openingBalanceMinor: 10_000_000,
  },
  {
    bankId: 'SANDBOX_COOLDOWN_FAST',
    currency: 'AED',
    accountsMetadata: metadata(
      {
        swiftCode: 'SBXQAEAD',
        bankName: 'Sandbox Quick Cool-down Bank',
        ...quickHiddenCoolDown,
      },
      'AED',
      aedMinimums,
    ),
    asks: asksNothing,
    detailsOnFirstTransfer: false,
    openingBalanceMinor: 10_000_000,
  },
  {
    bankId: 'SANDBOX_OTP',
    currency: 'AED',
    accountsMetadata: metadata({ swiftCode: 'SBXOAEAD', bankName: 'Sandbox OTP Bank' }, 'AED', aedMinimums),
    asks: { 'beneficiaries.create': otp, transfer: otp, balance: otp },
    detailsOnFirstTransfer: false,
    openingBalanceMinor: 10_000_000,
  },
  {
    bankId: 'SANDBOX_COOLDOWN_LISTED',
    currency: 'AED',
    accountsMetadata: metadata(
      {
        swiftCode: 'SBXLAEAD',
        bankName: 'Sandbox Listed Cool-down Bank',
        // Listed at once as `pending`, `approved` after 0.001 hours (3.6 seconds).
        beneficiaryCoolDownPeriod: { value: 0.001, unit: 'hrs' },
        willNewlyAddedBeneficiaryExistBeforeCoolDownPeriod: true,
      },
      'AED',
      aedMinimums,
    ),
    asks: asksNothing,
    detailsOnFirstTransfer: false,
    openingBalanceMinor: 10_000_000,
  },
  {
    bankId: 'SANDBOX_OTP_READS',
    currency: 'AED',
    accountsMetadata: metadata(
      { swiftCode: 'SBXGAEAD', bankName: 'Sandbox Guarded Reads Bank' },
      'AED',
      aedMinimums,
    ),
    asks: { metadata: otp, 'beneficiaries.list': otp },
    detailsOnFirstTransfer: false,
    openingBalanceMinor: 10_000_000,
  },
  {
    bankId: 'SANDBOX_COOLDOWN_OTP_LIST',
    currency: 'AED',
    accountsMetadata: metadata(
      {
        swiftCode: 'SBXHAEAD',
        bankName: 'Sandbox Hidden Guarded List Bank',
        // The look-up after the cool-down meets a question: the bank asks one on its list.
        ...quickHiddenCoolDown,
      },
      'AED',
      aedMinimums,
    ),
    asks: { 'beneficiaries.list': otp },
    detailsOnFirstTransfer: false,
    openingBalanceMinor: 10_000_000,
  },
  {
    bankId: 'SANDBOX_OTP_INLINE',
    currency: 'AED',
    accountsMetadata: metadata(
      {
        swiftCode: 'SBXIAEAD',
        bankName: 'Sandbox Direct OTP Bank',
        isCreateBeneficiaryEndpointRequired: false,
      },
      'AED',
      aedMinimums,
    ),
    asks: { transfer: otp },
    detailsOnFirstTransfer: false,
    openingBalanceMinor: 10_000_000,
  },
  {
    bankId: 'SANDBOX_OTP_TWO_QUESTIONS',
    currency: 'AED',
    accountsMetadata: metadata(
      { swiftCode: 'SBXTAEAD', bankName: 'Sandbox Two Questions Bank' },
      'AED',
      aedMinimums,
    ),
    asks: {
      'beneficiaries.create': ['otp', 'secret_question'],
      transfer: ['otp', 'secret_question'],
      balance: ['otp', 'secret_question'],
    },
    detailsOnFirstTransfer: false,
    openingBalanceMinor: 10_000_000,
  },
  {
    bankId: 'SANDBOX_RECEIPT_REFERENCE',
    currency: 'AED',
    accountsMetadata: metadata(
      { swiftCode: 'SBXRAEAD', bankName: 'Sandbox Receipt Reference Bank' },
      'AED',
      aedMinimums,
    ),
    asks: asksNothing,
    detailsOnFirstTransfer: false,
    openingBalanceMinor: 10_000_000,
  },
  {
    bankId: 'SANDBOX_SPARSE',
    currency: 'AED',
    accountsMetadata: metadata(
      { swiftCode: 'SBXSAEAD', bankName: 'Sandbox Sparse Bank' },
      'AED',
      aedMinimums,
    ),
    asks: asksNothing,
    detailsOnFirstTransfer: false,
    openingBalanceMinor: 10_000_000,
    answers: 'sparse',
  },
  {
    bankId: 'SANDBOX_KWD',
    currency: 'KWD',
    accountsMetadata: metadata(
      {
        swiftCode: 'SBXKKWKW',
        bankName: 'Sandbox Kuwait Bank',
        country: kuwait,
        address: { line1: 'Sandbox Tower', line2: 'Sharq', line3: 'Kuwait City' },
      },
      'KWD',
      { same: 0.1, local: 1 },
    ),
    asks: asksNothing,
    detailsOnFirstTransfer: false,
    openingBalanceMinor: 1_000_000,
  },
  ...[
    { bankId: 'SANDBOX_MASKED', swiftCode: 'SBXMAEAD', bankName: 'Sandbox Masked Bank', masksAccounts: true },
    // 5 calls per rolling 10 seconds: short enough for a test to see the limit and its end.
    {
      bankId: 'SANDBOX_RATE_LIMITED',
      swiftCode: 'SBXPAEAD',
      bankName: 'Sandbox Rate-Limited Bank',
      callLimit: { calls: 5, windowMs: 10_000 },
    },
  ].map(
    ({ bankId, swiftCode, bankName, ...behaviour }): SandboxBank => ({
      bankId,
      currency: 'AED',
      accountsMetadata: metadata({ swiftCode, bankName }, 'AED', aedMinimums),
      asks: asksNothing,
      detailsOnFirstTransfer: false,
      openingBalanceMinor: 10_000_000,
      ...behaviour,
    }),
  ),
];

/** The questions `bank` asks before an operation of this kind (none: an empty list). */
export function questionsAsked(bank: SandboxBank, kind: string): readonly QuestionId[] {
  const on: AskedOn = kind.startsWith('transfer.') ? 'transfer' : (kind as AskedOn);
  return bank.asks[on] ?? [];
}

const banksById = new Map(sandboxBanks.map((bank) => [bank.bankId, bank]));

export function findBank(bankId: string): SandboxBank | undefined {
  return banksById.get(bankId);
}

/** `GET /sandbox/banks`: every bank's id and metadata. */
export function listBanks(): HttpAnswer {
  return {
    status: 200,
    body: { banks: sandboxBanks.map(({ bankId, accountsMetadata }) => ({ bankId, accountsMetadata })) },
  };
}
