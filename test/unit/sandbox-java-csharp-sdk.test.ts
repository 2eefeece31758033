/**
 * The sandbox in the `dapi-v2` dialect, driven as Dapi's official Java and C# SDKs
 * drive it (test/support/java-sdk.ts, csharp-sdk.ts, typed-sdk.ts; docs/provider-v2.md): their
 * `DapiApp` methods take the same arguments and decode into the same types, so the same flows run
 * for both, each with its own requests and its own response schemas; then what each does alone.
 *
 * Java, read: dapi-co/dapi-java at 269a842,
 *   `src/main/java/co/dapi/DapiRequest.java`, `DapiApp.java`, `Auth.java`, `Metadata.java`,
 *   `Payment.java`, `Data.java`, `TimeoutInterceptor.java`, `response/*.java` (`BaseResponse`,
 *   `ExchangeTokenResponse`, `GetAccountsMetadataResponse`, `GetBeneficiariesResponse`,
 *   `CreateBeneficiaryResponse`, `CreateTransferResponse`, `TransferAutoflowResponse`,
 *   `GetBalanceResponse`) and `types/*.java` (`AccountsMetadata`, `Beneficiary`, `BeneficiaryAddress`,
 *   `Balance`, `Range`, `TransferBounds`, `UserInput`, `Validators`, `ValidatorProps`, `APIStatus`).
 *   Every body carries `action` (the call's path) and the short forms' `operationID: ""`; amounts are
 *   32-bit floats (`250.0`); Java has no operation read.
 *
 * C#, read: dapi-co/dapi-csharp at
 *   f7a966b, `src/Dapi/Products/DapiRequest.cs`, `Auth.cs`, `Metadata.cs`, `Payment.cs`, `Data.cs`,
 *   `src/Dapi/DapiApp.cs`, `src/Dapi/Dapi.csproj` (RestSharp 106.15, Newtonsoft 13),
 *   `src/Dapi/Response/*.cs` (`BaseResponse`, `ExchangeTokenResponse`, `GetAccountsMetadataResponse`,
 *   `GetBeneficiariesResponse`, `CreateBeneficiaryResponse`, `CreateTransferResponse`,
 *   `TransferAutoflowResponse`, `GetBalanceResponse`) and `src/Dapi/Types/*.cs` (`AccountsMetadata`,
 *   `Beneficiary`, `BeneficiaryAddress`, `Balance`, `Range`, `TransferBounds`, `UserInput`, `Validators`,
 *   `ValidatorProps`, `APIStatus`). No body names its call (`action` is internal); the short forms send
 *   `operationID: ""`; amounts are 32-bit floats (`250.0`); every enum throws on a value outside it;
 *   C# has no operation read.
 *
 * In process: the sandbox's routes composed as their handlers are, over its in-memory fake store (the
 * sanctioned stand-in for its table) and a manual clock (`test/support/in-process-sandbox.ts`); both
 * dialects' routes over real HTTP are test/e2e/sandbox-routes.test.ts's.
 */
import { describe, expect, it } from 'vitest';
import { CSharpTypes, csharp } from '../support/csharp-sdk.ts';
import { JavaTypes, java } from '../support/java-sdk.ts';
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

const sdks = [
  { name: 'Java', sdk: java, Types: JavaTypes, decoder: 'Gson' },
  { name: 'C#', sdk: csharp, Types: CSharpTypes, decoder: 'Newtonsoft' },
];

describe.each(sdks)('the $name SDK against the sandbox in dapi-v2', ({ sdk, Types }) => {
  const registered = (bankId: string) => registeredWith(sdk, bankId);

  it('scenario 1: exchange, metadata, list, createBeneficiary, list again, createTransfer of 250.0', async () => {
    // act
    const { user, metadata, before, created, after } = await registered('SANDBOX_BENEFICIARY');
    const [listed] = after.beneficiaries;
    const transfer = await sdk.createTransfer(user, transferTo(user.accountID, 250, listed?.id ?? ''));

    // assess
    expect(decoded(Types.ExchangeTokenResponse, user.exchanged).userID).toBe(user.connectionID);
    expect(metadata.accountsMetadata.isCreateBeneficiaryEndpointRequired).toBe(true);
    expect(before.beneficiaries).toEqual([]);
    decoded(Types.CreateBeneficiaryResponse, created);
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
    const { reference } = decoded(Types.TransferResponse, transfer);
    expect(await transfersOf(user)).toEqual([
      expect.objectContaining({
        reference,
        amount: 250,
        receiver: expect.objectContaining({ iban: wallet.iban }),
      }),
    ]);
  });

  it('scenario 2: $name sends no details with a receiverID, so the first transfer is refused, decoded', async () => {
    // prepare
    const { user, after } = await registered('SANDBOX_FIRST_DETAILS');

    // act
    const refused = await sdk.createTransfer(
      user,
      transferTo(user.accountID, 100, after.beneficiaries[0]?.id ?? ''),
    );

    // assess
    expect(decoded(Types.Refusal, refused).type).toBe('BENEFICIARY_DETAILS_REQUIRED');
  });

  it('transferAutoflow at a bank without beneficiaries: beneficiary with type and sortCode, bundleID, appKey, userID', async () => {
    // prepare
    const user = await typedUser(sdk, 'SANDBOX_NO_BENEFICIARY');
    const metadata = decoded(Types.GetAccountsMetadataResponse, await sdk.getAccountsMetadata(user));

    // act
    const reply = await sdk.transferAutoflow(user, {
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
    const { reference } = decoded(Types.TransferResponse, reply);
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
    const user = await typedUser(sdk, 'SANDBOX_NO_BENEFICIARY');

    // act
    const reply = await sdk.createTransfer(
      user,
      transferWithDetails(user.accountID, 40.5, wallet, 'deposit', 'Wallet'),
    );

    // assess
    const { reference } = decoded(Types.TransferResponse, reply);
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
      const user: TypedUser = await typedUser(sdk, bankId);

      // act
      const creation = await askedThenAnswered((resume) => sdk.createBeneficiary(user, walletInfo, resume));
      const list = decoded(Types.GetBeneficiariesResponse, await sdk.getBeneficiaries(user));
      const order = transferTo(user.accountID, 50, list.beneficiaries[0]?.id ?? '');
      const transfer = await askedThenAnswered((resume) => sdk.createTransfer(user, order, resume));
      const balance = await askedThenAnswered((resume) => sdk.getBalance(user, user.accountID, resume));

      // assess
      for (const { asked } of [creation, transfer, balance]) expect(asked.userInputs).toHaveLength(count);
      expect(decoded(Types.CreateBeneficiaryResponse, creation.answer).operationID).toBe(
        creation.asked.operationID,
      );
      expect(decoded(Types.TransferResponse, transfer.answer).operationID).toBe(transfer.asked.operationID);
      expect(decoded(Types.GetBalanceResponse, balance.answer).operationID).toBe(balance.asked.operationID);
    },
  );

  it('a bank that asks on reads: metadata and the list resumed', async () => {
    // prepare
    const user = await typedUser(sdk, 'SANDBOX_OTP_READS');

    // act
    const metadata = await askedThenAnswered((resume) => sdk.getAccountsMetadata(user, resume));
    const list = await askedThenAnswered((resume) => sdk.getBeneficiaries(user, resume));

    // assess
    expect(decoded(Types.GetAccountsMetadataResponse, metadata.answer).operationID).toBe(
      metadata.asked.operationID,
    );
    expect(decoded(Types.GetBeneficiariesResponse, list.answer).operationID).toBe(list.asked.operationID);
  });

  it('getBalance by accountID: Balance {amount, accountNumber, currency}', async () => {
    // prepare
    const user = await typedUser(sdk, 'SANDBOX_BENEFICIARY');

    // act
    const reply = await sdk.getBalance(user, user.accountID);

    // assess
    expect(decoded(Types.GetBalanceResponse, reply).balance).toMatchObject({
      amount: 100_000,
      currency: { code: 'AED' },
      accountNumber: user.accountID,
    });
  });

  it('metadata at a fast cool-down bank and at the three-decimal one: whole ints $decoder decodes', async () => {
    // prepare
    const fast = await typedUser(sdk, 'SANDBOX_COOLDOWN_FAST');
    const kwd = await typedUser(sdk, 'SANDBOX_KWD');

    // act
    const atFast = decoded(Types.GetAccountsMetadataResponse, await sdk.getAccountsMetadata(fast));
    const atKwd = decoded(Types.GetAccountsMetadataResponse, await sdk.getAccountsMetadata(kwd));

    // assess
    expect(atFast.accountsMetadata.beneficiaryCoolDownPeriod).toEqual({ value: 4, unit: 'secs' });
    expect(atKwd.accountsMetadata.transferBounds.map((bound) => bound.minimum)).not.toContain(0);
  });
});

describe('the Java SDK alone', () => {
  const registered = (bankId: string) => registeredWith(java, bankId);

  it('a transfer in the cool-down: CreateTransferResponse with coolDownPeriod {int, unit}', async () => {
    // prepare: a bank that lists new beneficiaries at once and cools them down for 3.6 s
    const { user, after } = await registered('SANDBOX_COOLDOWN_LISTED');

    // act
    const refused = await java.createTransfer(
      user,
      transferTo(user.accountID, 10, after.beneficiaries[0]?.id ?? ''),
    );

    // assess
    expect(after.beneficiaries[0]?.status).toBe('waiting_for_confirmation');
    const answer = decoded(JavaTypes.CoolDownRefusal, refused);
    expect(answer.msg).toContain(`after ${answer.coolDownPeriod.value} `);
  });
});

describe('the C# SDK alone', () => {
  const registered = (bankId: string) => registeredWith(csharp, bankId);

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
