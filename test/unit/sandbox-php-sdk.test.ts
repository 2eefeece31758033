/**
 * The sandbox in the `dapi-v2` dialect, driven as Dapi's official PHP SDK drives it
 * (test/support/php-sdk.ts; docs/provider-v2.md). Read: dapi-co/dapi-php at dd8cdea,
 * `src/Products/DapiRequester.php`, `Auth.php`, `Metadata.php`, `Payment.php`, `Data.php`,
 * `Operation.php`, `src/DapiClient.php` and `README.md` (its BaseResponse and per-method tables).
 * Every call but the exchange and the read carries `userInputs: []` and `operationID: ""` unless it
 * resumes; Guzzle throws on any 4xx or 5xx, so an answer the caller reads must be a 2xx.
 *
 * In process: the sandbox's routes composed as their handlers are, over its in-memory fake store (the
 * sanctioned stand-in for its table) and a manual clock (`test/support/in-process-sandbox.ts`); both
 * dialects' routes over real HTTP are test/e2e/sandbox-routes.test.ts's.
 */
import { describe, expect, it } from 'vitest';
import { goAnswers, goCall, goWallet } from '../support/go-sdk.ts';
import { PhpTypes, type PhpUser, php, phpAnswers, phpDecoded, phpUser } from '../support/php-sdk.ts';
import { decoded, sandboxOtp, transfersOf, wallet } from '../support/sdk-common.ts';

/** `$beneficiaryData` / `beneficiary` as the README's tables name them (country in capitals). */
const beneficiaryData = {
  name: wallet.name,
  accountNumber: wallet.accountNumber,
  iban: wallet.iban,
  swiftCode: wallet.swiftCode,
  type: 'local',
  address: wallet.address,
  country: 'UNITED ARAB EMIRATES',
  branchAddress: wallet.branchAddress,
  branchName: wallet.branchName,
};

/**
 * The wallet registered beforehand, outside the PHP SDK (its `createBeneficiary` posts to the
 * transfer's path), with the Go SDK's request; a question, if the bank asks one, answered.
 */
async function registeredElsewhere(user: PhpUser): Promise<string> {
  let created = await goCall(user, '/payment/beneficiaries/create', goWallet);
  if (created.body.status === 'user_input_required') {
    created = await goCall(user, '/payment/beneficiaries/create', {
      ...goWallet,
      operationID: created.body.operationID,
      userInputs: goAnswers(created.body.userInputs),
    });
  }
  if (created.body.status !== 'done') throw new Error(`not registered: ${JSON.stringify(created.body)}`);
  const listed = await goCall(user, '/payment/beneficiaries/get');
  return listed.body.beneficiaries[0].id;
}

describe('the PHP SDK against the sandbox in dapi-v2', () => {
  it('exchangeToken, getAccountsMetadata and getBeneficiaries, with userInputs [] and operationID ""', async () => {
    // prepare
    const user = await phpUser('SANDBOX_BENEFICIARY');

    // act
    const metadata = await php.getAccountsMetadata(user);
    const list = await php.getBeneficiaries(user);

    // assess
    expect(phpDecoded(PhpTypes.ExchangeToken, user.exchanged).accessToken).toBe(user.accessToken);
    expect(phpDecoded(PhpTypes.AccountsMetadata, metadata).accountsMetadata).toMatchObject({
      isCreateBeneficiaryEndpointRequired: true,
    });
    expect(phpDecoded(PhpTypes.Beneficiaries, list).beneficiaries).toEqual([]);
  });

  it('createBeneficiary posts to transfer/create: refused as a transfer (Guzzle throws), nothing registered', async () => {
    // prepare
    const user = await phpUser('SANDBOX_BENEFICIARY');

    // act
    const refused = await php.createBeneficiary(user, beneficiaryData);
    const list = await php.getBeneficiaries(user);

    // assess
    expect(refused.status).toBeGreaterThanOrEqual(400);
    expect(refused.status).toBeLessThan(500);
    expect(decoded(PhpTypes.Refusal, refused).type).toBe('BAD_REQUEST');
    expect(phpDecoded(PhpTypes.Beneficiaries, list).beneficiaries).toEqual([]);
  });

  it('createTransfer to a listed beneficiary (transferData senderID, amount, receiverID)', async () => {
    // prepare
    const user = await phpUser('SANDBOX_BENEFICIARY');
    await registeredElsewhere(user);
    const list = phpDecoded(PhpTypes.Beneficiaries, await php.getBeneficiaries(user));

    // act
    const reply = await php.createTransfer(user, {
      senderID: user.accountID,
      amount: 250.5,
      receiverID: list.beneficiaries[0]?.id,
    });

    // assess
    expect(list.beneficiaries).toEqual([expect.objectContaining({ name: wallet.name, status: 'approved' })]);
    expect(phpDecoded(PhpTypes.Transfer, reply).operationID).toMatch(/\S/);
  });

  it('transferAutoflow at a bank without beneficiaries: to transfer/create, beneficiary and bankID', async () => {
    // prepare
    const user = await phpUser('SANDBOX_NO_BENEFICIARY');

    // act
    const reply = await php.transferAutoflow(user, {
      senderID: user.accountID,
      amount: 75.25,
      beneficiary: beneficiaryData,
      bankID: 'SANDBOX_NO_BENEFICIARY',
    });

    // assess
    expect(phpDecoded(PhpTypes.Transfer, reply)).toMatchObject({ success: true, status: 'done' });
  });

  it("createTransfer with the README's receiver details and no receiverID, at a bank without beneficiaries", async () => {
    // prepare
    const user = await phpUser('SANDBOX_NO_BENEFICIARY');

    // act
    const reply = await php.createTransfer(user, {
      senderID: user.accountID,
      amount: 40,
      name: wallet.name,
      accountNumber: wallet.accountNumber,
      iban: wallet.iban,
    });

    // assess
    const { reference } = phpDecoded(PhpTypes.Transfer, reply);
    expect(await transfersOf(user)).toEqual([
      expect.objectContaining({
        reference,
        amount: 40,
        receiver: expect.objectContaining({ iban: wallet.iban }),
      }),
    ]);
  });

  it('getBalance by accountID and getCardBalance by cardID, on the one path', async () => {
    // prepare
    const user = await phpUser('SANDBOX_BENEFICIARY');

    // act
    const account = await php.getBalance(user, user.accountID);
    const card = await php.getCardBalance(user, user.cardID);

    // assess
    expect(phpDecoded(PhpTypes.Balance, account).balance).toMatchObject({
      amount: 100_000,
      currency: { code: 'AED' },
    });
    expect(phpDecoded(PhpTypes.Balance, card).balance).toMatchObject({
      availableBalance: expect.any(Number),
    });
  });

  it('an OTP bank: getBalance and createTransfer asked, then resumed with operationID and userInputs', async () => {
    // prepare
    const user = await phpUser('SANDBOX_OTP');
    const receiverID = await registeredElsewhere(user);
    const order = { senderID: user.accountID, amount: 50, receiverID };

    // act
    const balanceAsked = phpDecoded(PhpTypes.Asked, await php.getBalance(user, user.accountID));
    const balance = await php.getBalance(user, user.accountID, {
      operationID: balanceAsked.operationID,
      userInputs: phpAnswers(balanceAsked.userInputs, sandboxOtp),
    });
    const transferAsked = phpDecoded(PhpTypes.Asked, await php.createTransfer(user, order));
    const transfer = await php.createTransfer(user, order, {
      operationID: transferAsked.operationID,
      userInputs: phpAnswers(transferAsked.userInputs, sandboxOtp),
    });

    // assess
    expect(phpDecoded(PhpTypes.Balance, balance).operationID).toBe(balanceAsked.operationID);
    expect(phpDecoded(PhpTypes.Transfer, transfer).operationID).toBe(transferAsked.operationID);
  });

  it('an OTP bank without beneficiaries: transferAutoflow asked, then resumed', async () => {
    // prepare
    const user = await phpUser('SANDBOX_OTP_INLINE');
    const data = {
      senderID: user.accountID,
      amount: 60,
      beneficiary: beneficiaryData,
      bankID: 'SANDBOX_OTP_INLINE',
    };

    // act
    const asked = phpDecoded(PhpTypes.Asked, await php.transferAutoflow(user, data));
    const done = await php.transferAutoflow(user, data, {
      operationID: asked.operationID,
      userInputs: phpAnswers(asked.userInputs, sandboxOtp),
    });

    // assess
    expect(phpDecoded(PhpTypes.Transfer, done).operationID).toBe(asked.operationID);
  });

  it('a bank that asks on reads: getAccountsMetadata and getBeneficiaries asked, then resumed', async () => {
    // prepare
    const user = await phpUser('SANDBOX_OTP_READS');

    // act
    const metadataAsked = phpDecoded(PhpTypes.Asked, await php.getAccountsMetadata(user));
    const metadata = await php.getAccountsMetadata(user, {
      operationID: metadataAsked.operationID,
      userInputs: phpAnswers(metadataAsked.userInputs, sandboxOtp),
    });
    const listAsked = phpDecoded(PhpTypes.Asked, await php.getBeneficiaries(user));
    const list = await php.getBeneficiaries(user, {
      operationID: listAsked.operationID,
      userInputs: phpAnswers(listAsked.userInputs, sandboxOtp),
    });

    // assess
    expect(phpDecoded(PhpTypes.AccountsMetadata, metadata).operationID).toBe(metadataAsked.operationID);
    expect(phpDecoded(PhpTypes.Beneficiaries, list).operationID).toBe(listAsked.operationID);
  });

  it("getOperationStatus of a done transfer (appKey, operationID): opInfo's status and the path", async () => {
    // prepare
    const user = await phpUser('SANDBOX_NO_BENEFICIARY');
    const transfer = phpDecoded(
      PhpTypes.Transfer,
      await php.transferAutoflow(user, {
        senderID: user.accountID,
        amount: 30,
        beneficiary: beneficiaryData,
        bankID: 'SANDBOX_NO_BENEFICIARY',
      }),
    );

    // act
    const read = await php.getOperationStatus(user, transfer.operationID, 'acme-app-key');

    // assess: D-opget's `type` is the path called; the sandbox names the inline form's own
    // (`/payment/transfer/autoflow`) whichever path took it (docs/sandbox.md, "Provider dialects")
    expect(phpDecoded(PhpTypes.Operation, read)).toMatchObject({
      success: true,
      status: 'done',
      opInfo: { status: 'done', type: expect.stringMatching(/^\/payment\/transfer\/(create|autoflow)$/) },
    });
  });
});
