/**
 * The sandbox in the `dapi-v2` dialect over real HTTP, driven as Dapi's official Java SDK drives it
 * (test/support/java-sdk.ts, typed-sdk.ts; docs/provider-v2.md). Read: dapi-co/dapi-java at 269a842,
 * `src/main/java/co/dapi/DapiRequest.java`, `DapiApp.java`, `Auth.java`, `Metadata.java`,
 * `Payment.java`, `Data.java`, `TimeoutInterceptor.java`, `response/*.java` (`BaseResponse`,
 * `ExchangeTokenResponse`, `GetAccountsMetadataResponse`, `GetBeneficiariesResponse`,
 * `CreateBeneficiaryResponse`, `CreateTransferResponse`, `TransferAutoflowResponse`,
 * `GetBalanceResponse`) and `types/*.java` (`AccountsMetadata`, `Beneficiary`, `BeneficiaryAddress`,
 * `Balance`, `Range`, `TransferBounds`, `UserInput`, `Validators`, `ValidatorProps`, `APIStatus`).
 * Every body carries `action` (the call's path) and the short forms' `operationID: ""`; amounts are
 * 32-bit floats (`250.0`); Java has no operation read.
 */
import { describe, expect, it } from 'vitest';
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

const registered = (bankId: string) => registeredWith(java, bankId);

describe('the Java SDK against the sandbox in dapi-v2', () => {
  it('scenario 1: exchange, metadata, list, createBeneficiary, list again, createTransfer of 250.0', async () => {
    // act
    const { user, metadata, before, created, after } = await registered('SANDBOX_BENEFICIARY');
    const [listed] = after.beneficiaries;
    const transfer = await java.createTransfer(user, transferTo(user.accountID, 250, listed?.id ?? ''));

    // assess
    expect(decoded(JavaTypes.ExchangeTokenResponse, user.exchanged).userID).toBe(user.connectionID);
    expect(metadata.accountsMetadata.isCreateBeneficiaryEndpointRequired).toBe(true);
    expect(before.beneficiaries).toEqual([]);
    decoded(JavaTypes.CreateBeneficiaryResponse, created);
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
    const { reference } = decoded(JavaTypes.TransferResponse, transfer);
    expect(await transfersOf(user)).toEqual([
      expect.objectContaining({
        reference,
        amount: 250,
        receiver: expect.objectContaining({ iban: wallet.iban }),
      }),
    ]);
  });

  it('scenario 2: Java sends no details with a receiverID, so the first transfer is refused, decoded', async () => {
    // prepare
    const { user, after } = await registered('SANDBOX_FIRST_DETAILS');

    // act
    const refused = await java.createTransfer(
      user,
      transferTo(user.accountID, 100, after.beneficiaries[0]?.id ?? ''),
    );

    // assess
    expect(decoded(JavaTypes.Refusal, refused).type).toBe('BENEFICIARY_DETAILS_REQUIRED');
  });

  it('transferAutoflow at a bank without beneficiaries: beneficiary with type and sortCode, bundleID, appKey, userID', async () => {
    // prepare
    const user = await typedUser(java, 'SANDBOX_NO_BENEFICIARY');
    const metadata = decoded(JavaTypes.GetAccountsMetadataResponse, await java.getAccountsMetadata(user));

    // act
    const reply = await java.transferAutoflow(user, {
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
    const { reference } = decoded(JavaTypes.TransferResponse, reply);
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
    const user = await typedUser(java, 'SANDBOX_NO_BENEFICIARY');

    // act
    const reply = await java.createTransfer(
      user,
      transferWithDetails(user.accountID, 40.5, wallet, 'deposit', 'Wallet'),
    );

    // assess
    const { reference } = decoded(JavaTypes.TransferResponse, reply);
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
      const user: TypedUser = await typedUser(java, bankId);

      // act
      const creation = await askedThenAnswered((resume) => java.createBeneficiary(user, walletInfo, resume));
      const list = decoded(JavaTypes.GetBeneficiariesResponse, await java.getBeneficiaries(user));
      const order = transferTo(user.accountID, 50, list.beneficiaries[0]?.id ?? '');
      const transfer = await askedThenAnswered((resume) => java.createTransfer(user, order, resume));
      const balance = await askedThenAnswered((resume) => java.getBalance(user, user.accountID, resume));

      // assess
      for (const { asked } of [creation, transfer, balance]) expect(asked.userInputs).toHaveLength(count);
      expect(decoded(JavaTypes.CreateBeneficiaryResponse, creation.answer).operationID).toBe(
        creation.asked.operationID,
      );
      expect(decoded(JavaTypes.TransferResponse, transfer.answer).operationID).toBe(
        transfer.asked.operationID,
      );
      expect(decoded(JavaTypes.GetBalanceResponse, balance.answer).operationID).toBe(
        balance.asked.operationID,
      );
    },
  );

  it('a bank that asks on reads: metadata and the list resumed', async () => {
    // prepare
    const user = await typedUser(java, 'SANDBOX_OTP_READS');

    // act
    const metadata = await askedThenAnswered((resume) => java.getAccountsMetadata(user, resume));
    const list = await askedThenAnswered((resume) => java.getBeneficiaries(user, resume));

    // assess
    expect(decoded(JavaTypes.GetAccountsMetadataResponse, metadata.answer).operationID).toBe(
      metadata.asked.operationID,
    );
    expect(decoded(JavaTypes.GetBeneficiariesResponse, list.answer).operationID).toBe(list.asked.operationID);
  });

  it('getBalance by accountID: Balance {amount, accountNumber, currency}', async () => {
    // prepare
    const user = await typedUser(java, 'SANDBOX_BENEFICIARY');

    // act
    const reply = await java.getBalance(user, user.accountID);

    // assess
    expect(decoded(JavaTypes.GetBalanceResponse, reply).balance).toMatchObject({
      amount: 100_000,
      currency: { code: 'AED' },
      accountNumber: user.accountID,
    });
  });

  it('metadata at a fast cool-down bank and at the three-decimal one: whole ints Gson decodes', async () => {
    // prepare
    const fast = await typedUser(java, 'SANDBOX_COOLDOWN_FAST');
    const kwd = await typedUser(java, 'SANDBOX_KWD');

    // act
    const atFast = decoded(JavaTypes.GetAccountsMetadataResponse, await java.getAccountsMetadata(fast));
    const atKwd = decoded(JavaTypes.GetAccountsMetadataResponse, await java.getAccountsMetadata(kwd));

    // assess
    expect(atFast.accountsMetadata.beneficiaryCoolDownPeriod).toEqual({ value: 4, unit: 'secs' });
    expect(atKwd.accountsMetadata.transferBounds.map((bound) => bound.minimum)).not.toContain(0);
  });

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
