/**
 * The sandbox catalog: the fixed list of banks and what distinguishes each, users
 * created at every bank (whose metadata is the catalog entry), and the administration endpoints'
 * refusals.
 *
 * In process: the sandbox's routes composed as their handlers are, over its in-memory fake store (the
 * sanctioned stand-in for its table) and a manual clock (`test/support/in-process-sandbox.ts`).
 *
 * The users' refusals, options and reads: `sandbox-catalog-users.test.ts`.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MetadataResponse } from '#shared/provider/interface/responses';
import { AccountsMetadata } from '#shared/provider/interface/schemas';
import { CreateSandboxUserResponse } from '#shared/sandbox/admin-schemas';
import { appSecret, post, request } from '../support/in-process-sandbox.ts';
import { bankIds, catalog, expectedAccount } from '../support/sandbox-catalog.ts';

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
