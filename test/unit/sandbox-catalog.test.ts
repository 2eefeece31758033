/**
 * The sandbox catalog: the fixed list of banks and what distinguishes each, users
 * created at every bank (whose metadata is the catalog entry), and the administration endpoints'
 * refusals.
 *
 * In process: the sandbox's routes composed as their handlers are, over its in-memory fake store (the
 * sanctioned stand-in for its table) and a manual clock (`test/support/in-process-sandbox.ts`).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MetadataResponse, SandboxBanksResponse } from '#shared/provider/interface/responses';
import { AccountsMetadata } from '#shared/provider/interface/schemas';
import { CreateSandboxUserResponse, SandboxUserResponse } from '#shared/sandbox/admin-schemas';
import {
  appSecret,
  createUser,
  failed,
  givenBeneficiary,
  post,
  request,
  walletBeneficiary,
} from '../support/in-process-sandbox.ts';

const bankIds = [
  'SANDBOX_BENEFICIARY',
  'SANDBOX_FIRST_DETAILS',
  'SANDBOX_NO_BENEFICIARY',
  'SANDBOX_COOLDOWN',
  'SANDBOX_COOLDOWN_FAST',
  'SANDBOX_OTP',
  'SANDBOX_COOLDOWN_LISTED',
  'SANDBOX_OTP_READS',
  'SANDBOX_COOLDOWN_OTP_LIST',
  'SANDBOX_OTP_INLINE',
  'SANDBOX_OTP_TWO_QUESTIONS',
  'SANDBOX_RECEIPT_REFERENCE',
  'SANDBOX_SPARSE',
  'SANDBOX_KWD',
  'SANDBOX_MASKED',
  'SANDBOX_RATE_LIMITED',
];

/** Each bank's currency and the opening balance of a new user's account, in major units. */
const expectedAccount = (bankId: string) =>
  bankId === 'SANDBOX_KWD' ? { currency: 'KWD', balance: 1_000 } : { currency: 'AED', balance: 100_000 };

async function catalog(): Promise<Map<string, AccountsMetadata>> {
  const reply = await request('GET', '/sandbox/banks');
  if (reply.status !== 200) throw new Error(`no catalog: ${JSON.stringify(reply.body)}`);
  const { banks } = SandboxBanksResponse.parse(reply.body);
  return new Map(banks.map(({ bankId, accountsMetadata }) => [bankId, accountsMetadata]));
}

describe('GET /sandbox/banks', () => {
  it('lists exactly the documented banks, each with valid accountsMetadata', async () => {
    // act
    const reply = await request('GET', '/sandbox/banks');

    // assess
    expect(reply.status).toBe(200);
    expect(Object.keys(reply.body)).toEqual(['banks']);
    const ids = reply.body.banks.map((bank: { bankId: string }) => bank.bankId);
    expect([...ids].sort()).toEqual([...bankIds].sort());
    for (const bank of reply.body.banks) {
      expect(Object.keys(bank).sort()).toEqual(['accountsMetadata', 'bankId']);
      const parsed = AccountsMetadata.safeParse(bank.accountsMetadata);
      expect(parsed.error, bank.bankId).toBeUndefined();
      // Nothing beyond the spec's fields.
      expect(Object.keys(bank.accountsMetadata).sort(), bank.bankId).toEqual(
        Object.keys(AccountsMetadata.shape).sort(),
      );
    }
  });

  it("has a row for each bank in the sandbox page's bank table, and no other", () => {
    // prepare
    const page = readFileSync(join(import.meta.dirname, '../../docs/sandbox.md'), 'utf8');
    const section = page.split('### Banks')[1]?.split('\n### ')[0] ?? '';

    // act
    const rows = [...section.matchAll(/^\|\s*`(SANDBOX_[A-Z_]+)`\s*\|/gm)].map((match) => match[1]);

    // assess
    expect([...rows].sort()).toEqual([...bankIds].sort());
  });

  it('distinguishes the banks by their metadata', async () => {
    // act
    const banks = await catalog();

    // assess
    const cooldown = banks.get('SANDBOX_COOLDOWN');
    expect(cooldown?.beneficiaryCoolDownPeriod).toEqual({ value: 24, unit: 'hrs' });
    expect(cooldown?.willNewlyAddedBeneficiaryExistBeforeCoolDownPeriod).toBe(false);
    expect(cooldown?.isCreateBeneficiaryEndpointRequired).toBe(true);

    const fast = banks.get('SANDBOX_COOLDOWN_FAST');
    expect(fast?.beneficiaryCoolDownPeriod.unit).toBe('hrs');
    expect(fast?.beneficiaryCoolDownPeriod.value).toBeGreaterThan(0);
    expect(fast?.beneficiaryCoolDownPeriod.value).toBeLessThan(0.01);
    // Hidden from the beneficiary list until the cool-down has passed.
    expect(fast?.willNewlyAddedBeneficiaryExistBeforeCoolDownPeriod).toBe(false);
    expect(fast?.isCreateBeneficiaryEndpointRequired).toBe(true);

    expect(banks.get('SANDBOX_NO_BENEFICIARY')?.isCreateBeneficiaryEndpointRequired).toBe(false);
    expect(banks.get('SANDBOX_OTP_INLINE')?.isCreateBeneficiaryEndpointRequired).toBe(false);

    // Listed at once (as pending) while it cools down.
    const listed = banks.get('SANDBOX_COOLDOWN_LISTED');
    expect(listed?.beneficiaryCoolDownPeriod).toEqual(fast?.beneficiaryCoolDownPeriod);
    expect(listed?.willNewlyAddedBeneficiaryExistBeforeCoolDownPeriod).toBe(true);

    const kwd = banks.get('SANDBOX_KWD');
    expect(kwd?.country.code).toBe('KW');
    expect(kwd?.transferBounds.map((bound) => bound.currency.code)).toEqual(['KWD', 'KWD']);

    for (const id of [
      'SANDBOX_BENEFICIARY',
      'SANDBOX_FIRST_DETAILS',
      'SANDBOX_OTP',
      'SANDBOX_OTP_READS',
      'SANDBOX_OTP_TWO_QUESTIONS',
    ]) {
      const bank = banks.get(id);
      expect(bank?.beneficiaryCoolDownPeriod.value, id).toBe(0);
      expect(bank?.isCreateBeneficiaryEndpointRequired, id).toBe(true);
    }
    for (const [id, bank] of banks) {
      if (id !== 'SANDBOX_KWD') {
        expect(
          bank.transferBounds.map((bound) => bound.currency.code),
          id,
        ).toEqual(['AED', 'AED']);
        expect(bank.country.code, id).toBe('AE');
      }
      // A positive minimum for each transfer type.
      expect(bank.transferBounds.map((bound) => bound.type).sort(), id).toEqual(['local', 'same']);
      for (const bound of bank.transferBounds)
        expect(bound.minimum, `${id} ${bound.type}`).toBeGreaterThan(0);
    }
    // Each bank has its own SWIFT code, so `same` transfers are told apart.
    expect(new Set([...banks.values()].map((bank) => bank.swiftCode)).size).toBe(bankIds.length);
  });
});

describe('POST /sandbox/users at every bank', () => {
  it.each(bankIds)('%s: creates a user whose metadata is the catalog entry', async (bankId) => {
    // prepare
    const entry = (await catalog()).get(bankId);

    // act
    const created = await post('/sandbox/users', { appSecret, bankId });
    const { connectionID, accessCode, userSecret } = created.body;
    const exchanged = await post('/v1/auth/ExchangeToken', { appSecret, accessCode, connectionID });
    const bearer = { authorization: `Bearer ${exchanged.body.accessToken}` };
    const asked = await post('/v1/metadata/accounts/get', { appSecret, userSecret, sync: true }, bearer);
    // A bank that asks a question on metadata too is answered (rule 1: the same request, with the answer).
    const metadata =
      asked.body.status === 'user_input_required'
        ? await post(
            '/v1/metadata/accounts/get',
            {
              appSecret,
              userSecret,
              sync: true,
              userInputs: [{ id: 'otp', index: 0, query: '', answer: '123456' }],
            },
            bearer,
          )
        : asked;

    // assess
    expect(created.status).toBe(201);
    const user = CreateSandboxUserResponse.strict().parse(created.body);
    expect(user.accounts).toEqual([{ id: expect.any(String), ...expectedAccount(bankId) }]);
    expect(user.cards).toEqual([{ id: expect.any(String) }]);
    expect(metadata.status).toBe(200);
    expect(MetadataResponse.safeParse(metadata.body).error).toBeUndefined();
    expect(metadata.body).toEqual({
      jobID: expect.any(String),
      success: true,
      status: 'done',
      accountsMetadata: entry,
      // A bank that writes every envelope field writes those it does not return as null.
      ...(bankId === 'SANDBOX_SPARSE' ? { operationID: null, type: null, msg: null, reference: null } : {}),
    });
  });
});

describe('POST /sandbox/users refusals and options', () => {
  it('answers 404 INVALID_BANK_ID for an unknown bankId', async () => {
    // act
    const reply = await post('/sandbox/users', { appSecret, bankId: 'SANDBOX_NOPE' });

    // assess
    expect(reply.status).toBe(404);
    expect(reply.body).toEqual(failed('INVALID_BANK_ID'));
  });

  it('answers 401 UNAUTHORIZED for a wrong appSecret', async () => {
    // act
    const reply = await post('/sandbox/users', { appSecret: 'app_wrong', bankId: 'SANDBOX_BENEFICIARY' });

    // assess
    expect(reply.status).toBe(401);
    expect(reply.body).toEqual({
      success: false,
      status: 'failed',
      requestId: expect.any(String),
      type: 'UNAUTHORIZED',
      msg: 'Invalid access token',
    });
  });

  it('sets the opening balance from `balance`', async () => {
    // prepare
    const user = await createUser('SANDBOX_BENEFICIARY', { balance: 50.25 });

    // act
    const state = await user.state();

    // assess
    expect(user.balance).toBe(50.25);
    expect(state.accounts).toEqual([{ id: user.accountId, currency: 'AED', balance: 50.25 }]);
  });

  it('takes a KWD balance with 3 decimals', async () => {
    // act
    const created = await post('/sandbox/users', { appSecret, bankId: 'SANDBOX_KWD', balance: 12.345 });

    // assess
    expect(created.status).toBe(201);
    expect(created.body.accounts).toEqual([{ id: expect.any(String), currency: 'KWD', balance: 12.345 }]);
  });

  it.each([
    { name: 'AED balance with 3 decimals', settings: { balance: 50.255 }, field: 'balance' },
    { name: 'negative balance', settings: { balance: -1 }, field: 'balance' },
    { name: 'balance as a string', settings: { balance: '50' }, field: 'balance' },
    {
      name: 'access code lifetime of 0 s',
      settings: { accessCodeTtlSeconds: 0 },
      field: 'accessCodeTtlSeconds',
    },
  ])('answers 400 BAD_REQUEST for $name', async ({ settings, field }) => {
    // act
    const reply = await post('/sandbox/users', { appSecret, bankId: 'SANDBOX_BENEFICIARY', ...settings });

    // assess
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({
      success: false,
      status: 'failed',
      requestId: expect.any(String),
      type: 'BAD_REQUEST',
      msg: 'Invalid JSON request',
      details: [expect.stringMatching(new RegExp(`^${field}: `))],
    });
  });
});

describe('POST /sandbox/users/get', () => {
  it("returns the user's accounts, cards and transfers", async () => {
    // prepare
    const user = await createUser('SANDBOX_BENEFICIARY');
    const beneficiaryId = await givenBeneficiary(user);
    const transfer = await user.call('/v1/payment/transfer/create', {
      sync: true,
      amount: 20,
      senderID: user.accountId,
      receiverID: beneficiaryId,
    });

    // act
    const reply = await post('/sandbox/users/get', { appSecret, connectionID: user.connectionID });

    // assess
    expect(reply.status).toBe(200);
    const state = SandboxUserResponse.parse(reply.body);
    expect(state).toEqual({
      connectionID: user.connectionID,
      bankId: 'SANDBOX_BENEFICIARY',
      accounts: [{ id: user.accountId, currency: 'AED', balance: 99_980 }],
      cards: [{ id: user.cardId }],
      // No fault rules were set for this user.
      faults: [],
      transfers: [
        {
          reference: transfer.body.reference,
          operationID: transfer.body.operationID,
          senderID: user.accountId,
          amount: 20,
          currency: 'AED',
          type: 'local',
          receiver: {
            beneficiaryID: beneficiaryId,
            name: 'Acme Wallet LLC',
            iban: walletBeneficiary().iban,
            swiftCode: 'WALTAEAD',
          },
          createdAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
        },
      ],
      // The one creation call of its beneficiary.
      beneficiaryCreations: [
        {
          jobID: expect.any(String),
          at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
          iban: walletBeneficiary().iban,
          accountNumber: walletBeneficiary().accountNumber,
          outcome: 'created',
          beneficiaryID: beneficiaryId,
        },
      ],
    });
  });

  it('answers every call of the beneficiary creation that reached the bank, with what it did', async () => {
    // prepare
    const user = await createUser('SANDBOX_BENEFICIARY');
    await user.call(
      '/v1/payment/beneficiaries/create',
      { sync: true, ...walletBeneficiary() },
      {
        'x-sandbox-fault': 'error',
      },
    );
    const beneficiaryId = await givenBeneficiary(user);
    const again = await user.call('/v1/payment/beneficiaries/create', { sync: true, ...walletBeneficiary() });

    // act
    const reply = await post('/sandbox/users/get', { appSecret, connectionID: user.connectionID });

    // assess: the call a fault stopped before the bank saw it is not one
    const { beneficiaryCreations } = SandboxUserResponse.parse(reply.body);
    expect(
      beneficiaryCreations.map(({ outcome, type, beneficiaryID }) => ({ outcome, type, beneficiaryID })),
    ).toEqual([
      { outcome: 'created', type: undefined, beneficiaryID: beneficiaryId },
      { outcome: 'refused', type: 'BENEFICIARY_ALREADY_EXISTS', beneficiaryID: undefined },
    ]);
    expect(beneficiaryCreations[1]?.jobID).toBe(again.body.jobID);
  });

  it("refuses another application's secret, a wrong secret and an unknown connection", async () => {
    // prepare
    const user = await createUser('SANDBOX_BENEFICIARY');
    const otherApp = (await post('/sandbox/applications', {})).body.appSecret as string;

    // act
    const withOtherApp = await post('/sandbox/users/get', {
      appSecret: otherApp,
      connectionID: user.connectionID,
    });
    const withWrong = await post('/sandbox/users/get', {
      appSecret: 'app_wrong',
      connectionID: user.connectionID,
    });
    const unknown = await post('/sandbox/users/get', { appSecret, connectionID: 'conn_unknown' });
    const own = await post('/sandbox/users/get', { appSecret, connectionID: user.connectionID });

    // assess
    expect(otherApp).toEqual(expect.any(String));
    for (const reply of [withOtherApp, withWrong, unknown]) {
      expect(reply.status).toBe(401);
      expect(reply.body).toEqual(failed('UNAUTHORIZED'));
      expect(reply.body.accounts).toBeUndefined();
    }
    expect(own.status).toBe(200);
  });

  it('answers 400 BAD_REQUEST without connectionID', async () => {
    // act
    const reply = await post('/sandbox/users/get', { appSecret });

    // assess
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({
      success: false,
      status: 'failed',
      requestId: expect.any(String),
      type: 'BAD_REQUEST',
      msg: 'Invalid JSON request',
      details: [expect.stringMatching(/^connectionID: /)],
    });
  });
});
