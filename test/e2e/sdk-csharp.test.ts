/**
 * The sandbox in the `dapi-v2` dialect over real HTTP, driven as Dapi's official C# SDK drives it
 * (test/support/csharp-sdk.ts, typed-sdk.ts; docs/provider-v2.md). Read: dapi-co/dapi-csharp at
 * f7a966b, `src/Dapi/Products/DapiRequest.cs`, `Auth.cs`, `Metadata.cs`, `Payment.cs`, `Data.cs`,
 * `src/Dapi/DapiApp.cs`, `src/Dapi/Dapi.csproj` (RestSharp 106.15, Newtonsoft 13),
 * `src/Dapi/Response/*.cs` (`BaseResponse`, `ExchangeTokenResponse`, `GetAccountsMetadataResponse`,
 * `GetBeneficiariesResponse`, `CreateBeneficiaryResponse`, `CreateTransferResponse`,
 * `TransferAutoflowResponse`, `GetBalanceResponse`) and `src/Dapi/Types/*.cs` (`AccountsMetadata`,
 * `Beneficiary`, `BeneficiaryAddress`, `Balance`, `Range`, `TransferBounds`, `UserInput`, `Validators`,
 * `ValidatorProps`, `APIStatus`). No body names its call (`action` is internal); the short forms send
 * `operationID: ""`; amounts are 32-bit floats (`250.0`); every enum throws on a value outside it;
 * C# has no operation read.
 */
import { describe, expect, it } from 'vitest';
import { CSharpTypes, csharp } from '../support/csharp-sdk.ts';
import { decoded, transfersOf, wallet } from '../support/sdk-common.ts';
import {
  askedThenAnswered,
  registeredWith,
  type TypedUser,
  transferTo,
  transferWithDetails,
  typedUser,
  walletInfo,
} from '../support/typed-sdk.ts';

const registered = (bankId: string) => registeredWith(csharp, bankId);

describe('the C# SDK against the sandbox in dapi-v2', () => {
  it('scenario 1: exchange, metadata, list, createBeneficiary, list again, createTransfer of 250.0', async () => {
    // act
    const { user, metadata, before, created, after } = await registered('SANDBOX_BENEFICIARY');
    const [listed] = after.beneficiaries;
    const transfer = await csharp.createTransfer(user, transferTo(user.accountID, 250, listed?.id ?? ''));

    // assess
    expect(decoded(CSharpTypes.ExchangeTokenResponse, user.exchanged).userID).toBe(user.connectionID);
    expect(metadata.accountsMetadata.isCreateBeneficiaryEndpointRequired).toBe(true);
    expect(before.beneficiaries).toEqual([]);
    decoded(CSharpTypes.CreateBeneficiaryResponse, created);
    expect(after.beneficiaries).toEqual([
      {
        id: expect.any(String),
        name: wallet.name,
        iban: wallet.iban,
        accountNumber: wallet.accountNumber,
        type: 'local',
        status: 'approved',
      },
    ]);
    const { reference } = decoded(CSharpTypes.TransferResponse, transfer);
    expect(await transfersOf(user)).toEqual([
      expect.objectContaining({
        reference,
        amount: 250,
        receiver: expect.objectContaining({ iban: wallet.iban }),
      }),
    ]);
  });

  it('scenario 2: C# sends no details with a receiverID, so the first transfer is refused, decoded', async () => {
    // prepare
    const { user, after } = await registered('SANDBOX_FIRST_DETAILS');

    // act
    const refused = await csharp.createTransfer(
      user,
      transferTo(user.accountID, 100, after.beneficiaries[0]?.id ?? ''),
    );

    // assess
    expect(decoded(CSharpTypes.Refusal, refused).type).toBe('BENEFICIARY_DETAILS_REQUIRED');
  });

  it('transferAutoflow at a bank without beneficiaries: beneficiary with type and sortCode, bundleID, appKey, userID', async () => {
    // prepare
    const user = await typedUser(csharp, 'SANDBOX_NO_BENEFICIARY');
    const metadata = decoded(CSharpTypes.GetAccountsMetadataResponse, await csharp.getAccountsMetadata(user));

    // act
    const reply = await csharp.transferAutoflow(user, {
      bundleID: 'com.acme.deposits',
      appKey: 'acme-app-key',
      userID: user.userID,
      bankID: 'SANDBOX_NO_BENEFICIARY',
      senderID: user.accountID,
      amount: 75.25,
      beneficiary: { ...walletInfo, bankName: wallet.bankName, sortCode: '', nickname: 'Wallet' },
      remark: 'deposit',
    });

    // assess
    expect(metadata.accountsMetadata.isCreateBeneficiaryEndpointRequired).toBe(false);
    const { reference } = decoded(CSharpTypes.TransferResponse, reply);
    expect(await transfersOf(user)).toEqual([
      expect.objectContaining({
        reference,
        amount: 75.25,
        receiver: expect.objectContaining({ iban: wallet.iban }),
      }),
    ]);
  });

  it('createTransfer with the receiver details and no receiverID, at a bank without beneficiaries', async () => {
    // prepare
    const user = await typedUser(csharp, 'SANDBOX_NO_BENEFICIARY');

    // act
    const reply = await csharp.createTransfer(
      user,
      transferWithDetails(user.accountID, 40.5, wallet, 'deposit', 'Wallet'),
    );

    // assess
    const { reference } = decoded(CSharpTypes.TransferResponse, reply);
    expect(await transfersOf(user)).toEqual([
      expect.objectContaining({
        reference,
        amount: 40.5,
        receiver: expect.objectContaining({ iban: wallet.iban }),
      }),
    ]);
  });

  it.each([
    ['one question', 'SANDBOX_OTP', 1],
    ['two questions', 'SANDBOX_OTP_TWO_QUESTIONS', 2],
  ])(
    'an OTP bank, %s: creation, transfer and balance resumed with UserInput(id, index, answer)',
    async (_name, bankId, count) => {
      // prepare
      const user: TypedUser = await typedUser(csharp, bankId);

      // act
      const creation = await askedThenAnswered((resume) =>
        csharp.createBeneficiary(user, walletInfo, resume),
      );
      const list = decoded(CSharpTypes.GetBeneficiariesResponse, await csharp.getBeneficiaries(user));
      const order = transferTo(user.accountID, 50, list.beneficiaries[0]?.id ?? '');
      const transfer = await askedThenAnswered((resume) => csharp.createTransfer(user, order, resume));
      const balance = await askedThenAnswered((resume) => csharp.getBalance(user, user.accountID, resume));

      // assess
      for (const { asked } of [creation, transfer, balance]) expect(asked.userInputs).toHaveLength(count);
      expect(decoded(CSharpTypes.CreateBeneficiaryResponse, creation.answer).operationID).toBe(
        creation.asked.operationID,
      );
      expect(decoded(CSharpTypes.TransferResponse, transfer.answer).operationID).toBe(
        transfer.asked.operationID,
      );
      expect(decoded(CSharpTypes.GetBalanceResponse, balance.answer).operationID).toBe(
        balance.asked.operationID,
      );
    },
  );

  it('a bank that asks on reads: metadata and the list resumed', async () => {
    // prepare
    const user = await typedUser(csharp, 'SANDBOX_OTP_READS');

    // act
    const metadata = await askedThenAnswered((resume) => csharp.getAccountsMetadata(user, resume));
    const list = await askedThenAnswered((resume) => csharp.getBeneficiaries(user, resume));

    // assess
    expect(decoded(CSharpTypes.GetAccountsMetadataResponse, metadata.answer).operationID).toBe(
      metadata.asked.operationID,
    );
    expect(decoded(CSharpTypes.GetBeneficiariesResponse, list.answer).operationID).toBe(
      list.asked.operationID,
    );
  });

  it('getBalance by accountID: Balance {amount, accountNumber, currency}', async () => {
    // prepare
    const user = await typedUser(csharp, 'SANDBOX_BENEFICIARY');

    // act
    const reply = await csharp.getBalance(user, user.accountID);

    // assess
    expect(decoded(CSharpTypes.GetBalanceResponse, reply).balance).toMatchObject({
      amount: 100_000,
      currency: { code: 'AED' },
      accountNumber: user.accountID,
    });
  });

  it('metadata at a fast cool-down bank and at the three-decimal one: whole ints Newtonsoft decodes', async () => {
    // prepare
    const fast = await typedUser(csharp, 'SANDBOX_COOLDOWN_FAST');
    const kwd = await typedUser(csharp, 'SANDBOX_KWD');

    // act
    const atFast = decoded(CSharpTypes.GetAccountsMetadataResponse, await csharp.getAccountsMetadata(fast));
    const atKwd = decoded(CSharpTypes.GetAccountsMetadataResponse, await csharp.getAccountsMetadata(kwd));

    // assess
    expect(atFast.accountsMetadata.beneficiaryCoolDownPeriod).toEqual({ value: 4, unit: 'secs' });
    expect(atKwd.accountsMetadata.transferBounds.map((bound) => bound.minimum)).not.toContain(0);
  });

  it('a new beneficiary in its cool-down: listed waiting_for_confirmation (the enum), the transfer refused, decoded', async () => {
    // prepare: a bank that lists new beneficiaries at once and cools them down for 3.6 s
    const { user, after } = await registered('SANDBOX_COOLDOWN_LISTED');

    // act
    const refused = await csharp.createTransfer(
      user,
      transferTo(user.accountID, 10, after.beneficiaries[0]?.id ?? ''),
    );

    // assess: BeneficiaryStatus has no `pending`, on which StringEnumConverter would throw
    expect(after.beneficiaries[0]?.status).toBe('waiting_for_confirmation');
    expect(refused.status).toBe(400);
    expect(decoded(CSharpTypes.Refusal, refused).type).toBe('BENEFICIARY_COOL_DOWN_PERIOD');
  });
});
