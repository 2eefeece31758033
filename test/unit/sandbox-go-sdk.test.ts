/**
 * The sandbox in the `dapi-v2` dialect, driven as Dapi's official Go SDK drives it
 * (test/support/go-sdk.ts: its requests written from its source, its answers decoded against the
 * types it declares; docs/provider-v2.md): the v2 dialect's flows, one user each.
 *
 * In process: the sandbox's routes composed as their handlers are, over its in-memory fake store (the
 * sanctioned stand-in for its table) and a manual clock (`test/support/in-process-sandbox.ts`); both
 * dialects' routes over real HTTP are test/e2e/sandbox-routes.test.ts's.
 */
import { describe, expect, it } from 'vitest';
import { decoded, GoTypes, goAnswers, goCall, goUser, goWallet } from '../support/go-sdk.ts';

/** `GetAccountsMetadata`, `GetBeneficiaries`, `CreateBeneficiary`, `GetBeneficiaries` again. */
async function registered(bankId: string) {
  const user = await goUser(bankId);
  decoded(GoTypes.ExchangeTokenResponse, user.exchanged);
  const metadata = decoded(GoTypes.AccountsMetadataResponse, await goCall(user, '/metadata/accounts/get'));
  const before = decoded(GoTypes.GetBeneficiariesResponse, await goCall(user, '/payment/beneficiaries/get'));
  const created = decoded(
    GoTypes.CreateBeneficiaryResponse,
    await goCall(user, '/payment/beneficiaries/create', goWallet),
  );
  const after = decoded(GoTypes.GetBeneficiariesResponse, await goCall(user, '/payment/beneficiaries/get'));
  return { user, metadata, before, created, after };
}

describe('the Go SDK against the sandbox in dapi-v2', () => {
  it('scenario 1: exchange, metadata, list, create the wallet, list again, transfer to the listed id', async () => {
    // act
    const { user, metadata, before, created, after } = await registered('SANDBOX_BENEFICIARY');
    const [listed] = after.beneficiaries;
    const transfer = await goCall(user, '/payment/transfer/create', {
      senderID: user.accountID,
      amount: 250,
      receiverID: listed?.id,
      remark: '',
    });

    // assess
    expect(metadata).toMatchObject({ success: true, status: 'done' });
    expect(metadata.accountsMetadata.isCreateBeneficiaryEndpointRequired).toBe(true);
    expect(before.beneficiaries).toEqual([]);
    expect(created).toMatchObject({ success: true, status: 'done' });
    expect(after.beneficiaries).toEqual([
      expect.objectContaining({ iban: goWallet.iban, name: goWallet.name, status: 'approved' }),
    ]);
    expect(decoded(GoTypes.TransferResponse, transfer)).toMatchObject({ success: true, status: 'done' });
    expect(transfer.body).not.toHaveProperty('jobID');
  });

  it('scenario 2: the first transfer with the details Go sends (top-level name, iban, accountNumber)', async () => {
    // prepare
    const { user, after } = await registered('SANDBOX_FIRST_DETAILS');
    const order = { senderID: user.accountID, amount: 100, receiverID: after.beneficiaries[0]?.id };

    // act
    const withDetails = await goCall(user, '/payment/transfer/create', {
      ...order,
      name: goWallet.name,
      iban: goWallet.iban,
      accountNumber: goWallet.accountNumber,
    });
    const second = await goCall(user, '/payment/transfer/create', order);

    // assess
    expect(decoded(GoTypes.TransferResponse, withDetails)).toMatchObject({ status: 'done' });
    expect(decoded(GoTypes.TransferResponse, second)).toMatchObject({ status: 'done' });
  });

  it('autoflow at a bank that takes no beneficiaries: Beneficiary (capital B), bankID, no action', async () => {
    // prepare
    const user = await goUser('SANDBOX_NO_BENEFICIARY');
    const { type: _type, ...receiver } = goWallet;
    const metadata = decoded(GoTypes.AccountsMetadataResponse, await goCall(user, '/metadata/accounts/get'));

    // act
    const reply = await goCall(user, '/payment/transfer/autoflow', {
      senderID: user.accountID,
      amount: 75.25,
      bankID: '',
      Beneficiary: receiver,
    });

    // assess
    expect(metadata.accountsMetadata.isCreateBeneficiaryEndpointRequired).toBe(false);
    expect(decoded(GoTypes.TransferResponse, reply)).toMatchObject({ success: true, status: 'done' });
  });

  it.each([
    ['one question', 'SANDBOX_OTP', 1],
    ['two questions', 'SANDBOX_OTP_TWO_QUESTIONS', 2],
  ])(
    'an OTP bank, %s: the creation and the transfer resumed with operationID and userInputs',
    async (_name, bankId, count) => {
      // prepare
      const user = await goUser(bankId);

      // act
      const asked = decoded(GoTypes.Asked, await goCall(user, '/payment/beneficiaries/create', goWallet));
      const created = await goCall(user, '/payment/beneficiaries/create', {
        ...goWallet,
        operationID: asked.operationID,
        userInputs: goAnswers(asked.userInputs),
      });
      const list = decoded(
        GoTypes.GetBeneficiariesResponse,
        await goCall(user, '/payment/beneficiaries/get'),
      );
      const order = { senderID: user.accountID, amount: 50, receiverID: list.beneficiaries[0]?.id };
      const transferAsked = decoded(GoTypes.Asked, await goCall(user, '/payment/transfer/create', order));
      const transfer = await goCall(user, '/payment/transfer/create', {
        ...order,
        operationID: transferAsked.operationID,
        userInputs: goAnswers(transferAsked.userInputs),
      });

      // assess
      expect(asked.userInputs).toHaveLength(count);
      expect(decoded(GoTypes.CreateBeneficiaryResponse, created)).toMatchObject({
        operationID: asked.operationID,
        status: 'done',
      });
      expect(transferAsked.userInputs).toHaveLength(count);
      expect(decoded(GoTypes.TransferResponse, transfer)).toMatchObject({
        operationID: transferAsked.operationID,
        status: 'done',
      });
    },
  );

  it('the balance by accountID (Go GetBalance): amount a number, currency, accountNumber', async () => {
    // prepare
    const user = await goUser('SANDBOX_BENEFICIARY');

    // act
    const reply = await goCall(user, '/data/balance/get', { accountID: user.accountID });

    // assess
    const answer = decoded(GoTypes.BalanceResponse, reply);
    expect(answer.balance).toMatchObject({
      amount: 100_000,
      currency: { code: 'AED' },
      accountNumber: user.accountID,
    });
  });

  it('metadata at a fast cool-down bank and at the three-decimal one: whole numbers Go decodes', async () => {
    // prepare
    const fast = await goUser('SANDBOX_COOLDOWN_FAST');
    const kwd = await goUser('SANDBOX_KWD');

    // act
    const atFast = decoded(GoTypes.AccountsMetadataResponse, await goCall(fast, '/metadata/accounts/get'));
    const atKwd = decoded(GoTypes.AccountsMetadataResponse, await goCall(kwd, '/metadata/accounts/get'));

    // assess
    expect(atFast.accountsMetadata.beneficiaryCoolDownPeriod).toEqual({ value: 4, unit: 'secs' });
    expect(atKwd.accountsMetadata.transferBounds.every((bound) => bound.minimum >= 1)).toBe(true);
  });

  it('a transfer in the cool-down: 400, coolDownPeriod {int, unit} (Java) and "after x second(s)"', async () => {
    // prepare: a bank that lists new beneficiaries at once and cools them down for 3.6 s
    const { user, after } = await registered('SANDBOX_COOLDOWN_LISTED');

    // act
    const refused = await goCall(user, '/payment/transfer/create', {
      senderID: user.accountID,
      amount: 10,
      receiverID: after.beneficiaries[0]?.id,
    });

    // assess
    expect(after.beneficiaries[0]?.status).toBe('waiting_for_confirmation');
    expect(refused.status).toBe(400);
    const answer = decoded(GoTypes.CoolDownRefusal, refused);
    expect(answer.msg).toBe(
      `New beneficiary will be activated for fund transfer after ${answer.coolDownPeriod.value} second(s)`,
    );
  });
});
