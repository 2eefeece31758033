/**
 * The paths both dialects share (`/v2/data/balance/get`, `/v2/operation/get`), which answer the same
 * in both, and the spec dialect lenient where the provider is (a missing address line, an answer
 * without its index or query), over the in-memory store.
 */
import { describe, expect, it } from 'vitest';
import { CreateBeneficiaryRequest } from '#shared/provider/interface/schemas';
import { v2Autoflow } from '#shared/sandbox/dialect-v2/operations';
import { V2AutoflowRequest } from '#shared/sandbox/dialect-v2/requests';
import type { OperationContext } from '#shared/sandbox/operation-spec';
import { getBalance } from '#shared/sandbox/operations/account-balance';
import { createBeneficiary } from '#shared/sandbox/operations/beneficiaries';
import { getOperation } from '#shared/sandbox/operations/operation-get';
import { givenSandbox } from '../support/given-sandbox.ts';

const goWallet = {
  name: 'Acme Wallet LLC',
  iban: 'AE070331234567890123456',
  accountNumber: '1234567890123456',
  swiftCode: 'WALTAEAD',
  country: 'AE',
  type: 'local',
  address: { line1: 'Wallet Street 1' },
};

/** Autoflow in v2, its body read by its schema first, as its handler runs it. */
const autoflow = (context: OperationContext, body: Record<string, unknown>) =>
  v2Autoflow(context, V2AutoflowRequest.parse(body));
describe('the paths both dialects share', () => {
  it('the balance by accountID: {amount, currency, accountNumber}; by cardID as before', async () => {
    // prepare
    const { createUser } = givenSandbox();
    const user = await createUser('SANDBOX_BENEFICIARY');

    // act
    const byAccount = await user.call(getBalance, { sync: true, accountID: user.accountId });
    const byCard = await user.call(getBalance, { sync: true, cardID: user.cardId });

    // assess
    expect(byAccount.body).toMatchObject({
      operationID: expect.any(String),
      status: 'done',
      balance: {
        amount: 100_000,
        currency: { code: 'AED', name: expect.any(String) },
        accountNumber: user.accountId,
      },
    });
    expect(byCard.body.balance).toMatchObject({ availableBalance: expect.any(Number) });
  });

  it('the operation read carries opInfo beside the spec fields', async () => {
    // prepare
    const { createUser } = givenSandbox();
    const user = await createUser('SANDBOX_NO_BENEFICIARY');
    const { type: _type, ...receiver } = goWallet;
    const done = await user.call(autoflow, { amount: 10, senderID: user.accountId, beneficiary: receiver });
    const operationID = done.body.operationID as string;

    // act
    const read = await user.call(getOperation, { operationID });

    // assess
    expect(read.body).toMatchObject({
      operationID,
      success: true,
      status: 'done',
      reference: done.body.reference,
      opInfo: {
        status: 'done',
        type: '/payment/transfer/autoflow',
        transferDetails: { reference: done.body.reference },
      },
    });
  });
});

describe('lenient in the spec dialect too', () => {
  it('a missing address line is ""', () => {
    // act
    const parsed = CreateBeneficiaryRequest.parse({
      appSecret: 'app-secret',
      userSecret: 'user-secret',
      sync: true,
      ...goWallet,
      country: 'United Arab Emirates',
      address: { line1: 'Wallet Street 1' },
    });

    // assess
    expect(parsed.address).toEqual({ line1: 'Wallet Street 1', line2: '', line3: '' });
  });

  it('an answer matched by id: a missing index is its position, a missing query empty', async () => {
    // prepare
    const { createUser } = givenSandbox();
    const user = await createUser('SANDBOX_OTP_TWO_QUESTIONS');
    const request = {
      sync: true,
      ...goWallet,
      country: 'United Arab Emirates',
      sortCode: '',
      bankName: '',
      branchName: '',
      branchAddress: '',
      address: { line1: 'Wallet Street 1', line2: '', line3: '' },
    };
    const asked = await user.call(createBeneficiary, request);
    const inputs = asked.body.userInputs as { id: string; index: number }[];
    const body = {
      appSecret: 'unit-test-app-secret',
      userSecret: 'secret',
      ...request,
      jobID: asked.body.jobID,
      userInputs: inputs.map((input) => ({ id: input.id, answer: '123456' })),
    };

    // act
    const parsed = CreateBeneficiaryRequest.parse(body);
    const { appSecret: _a, userSecret: _u, ...sent } = parsed;
    const done = await user.call(createBeneficiary, sent);

    // assess
    expect(parsed.userInputs).toEqual([
      { id: inputs[0]?.id, index: 0, query: '', answer: '123456' },
      { id: inputs[1]?.id, index: 1, query: '', answer: '123456' },
    ]);
    expect(done.body).toMatchObject({ jobID: asked.body.jobID, success: true, status: 'done' });
  });
});
