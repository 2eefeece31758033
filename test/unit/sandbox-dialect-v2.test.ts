/**
 * The sandbox in the `dapi-v2` dialect, over the in-memory store: requests as the
 * provider's SDKs send them (docs/provider-v2.md) read into the spec's operations at the edge, and
 * their answers written back in v2: `operationID` on every answer, no `sync`, a question resumed with
 * `operationID` and `userInputs`, the SDKs' shapes of the inline receiver and scenario 2's details,
 * whole numbers where the SDKs decode integers, the cool-down refusal's period, the balance by account,
 * and `opInfo` on the operation read.
 */
import { describe, expect, it } from 'vitest';
import type * as z from 'zod';
import type { HttpAnswer } from '#shared/sandbox/answer';
import {
  v2Autoflow,
  v2CreateBeneficiary,
  v2CreateTransfer,
  v2GetMetadata,
  v2ListBeneficiaries,
} from '#shared/sandbox/dialect-v2/operations';
import {
  V2AutoflowRequest,
  V2CreateBeneficiaryRequest,
  V2ListBeneficiariesRequest,
  V2MetadataRequest,
  V2TransferRequest,
} from '#shared/sandbox/dialect-v2/requests';
import type { OperationContext } from '#shared/sandbox/operation-spec';
import { getMetadata } from '#shared/sandbox/operations/metadata';
import { givenSandbox } from '../support/given-sandbox.ts';

type Credentials = { appSecret: string; userSecret: string };

/** A v2 operation as its handler runs it: the body read by its schema first. */
function v2<S extends z.ZodType>(
  schema: S,
  operation: (context: OperationContext, body: z.infer<S>) => Promise<HttpAnswer>,
) {
  return (context: OperationContext, body: Credentials & Record<string, unknown>) =>
    operation(context, schema.parse(body));
}

const metadata = v2(V2MetadataRequest, v2GetMetadata);
const list = v2(V2ListBeneficiariesRequest, v2ListBeneficiaries);
const create = v2(V2CreateBeneficiaryRequest, v2CreateBeneficiary);
const transfer = v2(V2TransferRequest, v2CreateTransfer);
const autoflow = v2(V2AutoflowRequest, v2Autoflow);

/** The wallet as Go's SDK sends it: no `sortCode`, `omitempty` strings, `address` with lines left out. */
const goWallet = {
  name: 'Acme Wallet LLC',
  iban: 'AE070331234567890123456',
  accountNumber: '1234567890123456',
  swiftCode: 'WALTAEAD',
  country: 'AE',
  type: 'local',
  address: { line1: 'Wallet Street 1' },
};

describe('dapi-v2: every answer names its operation operationID, and no call sends sync', () => {
  it('metadata: operationID, no jobID; the cool-down and the minimums whole', async () => {
    // prepare
    const { createUser } = givenSandbox();
    const fast = await createUser('SANDBOX_COOLDOWN_FAST');
    const kwd = await createUser('SANDBOX_KWD');

    // act
    const atFast = await fast.call(metadata, {});
    const atKwd = await kwd.call(metadata, {});

    // assess
    expect(atFast.status).toBe(200);
    expect(atFast.body).toMatchObject({ operationID: expect.any(String), success: true, status: 'done' });
    expect(atFast.body).not.toHaveProperty('jobID');
    const fastMeta = atFast.body.accountsMetadata as Record<string, unknown>;
    // 0.001 hrs (3.6 s) in whole seconds, rounded up: never shorter than the bank's.
    expect(fastMeta.beneficiaryCoolDownPeriod).toEqual({ value: 4, unit: 'secs' });
    const kwdMeta = atKwd.body.accountsMetadata as { transferBounds: { minimum: number; type: string }[] };
    expect(kwdMeta.transferBounds.map((bound) => [bound.type, bound.minimum])).toEqual(
      expect.arrayContaining([
        ['same', 1],
        ['local', 1],
      ]),
    );
  });

  it('PHP first call: operationID "" and userInputs [] are ignored', async () => {
    // prepare
    const { createUser } = givenSandbox();
    const user = await createUser('SANDBOX_BENEFICIARY');

    // act
    const reply = await user.call(metadata, { operationID: '', userInputs: [] });

    // assess
    expect(reply.body).toMatchObject({ success: true, status: 'done', operationID: expect.any(String) });
  });

  it('the spec dialect answers as before: jobID, the bank own cool-down', async () => {
    // prepare
    const { createUser } = givenSandbox();
    const user = await createUser('SANDBOX_COOLDOWN_FAST');

    // act
    const reply = await user.call(getMetadata, { sync: true });

    // assess
    expect(reply.body).toMatchObject({ jobID: expect.any(String), success: true, status: 'done' });
    expect(reply.body).not.toHaveProperty('operationID');
    const meta = reply.body.accountsMetadata as Record<string, unknown>;
    expect(meta.beneficiaryCoolDownPeriod).toEqual({ value: 0.001, unit: 'hrs' });
  });
});

describe('dapi-v2 beneficiaries and transfers', () => {
  it('lists a new beneficiary with its iban as waiting_for_confirmation, then approved', async () => {
    // prepare
    const { createUser, clock } = givenSandbox();
    const user = await createUser('SANDBOX_COOLDOWN_LISTED');
    const created = await user.call(create, goWallet);

    // act
    const early = await user.call(list, {});
    clock.advance(5_000);
    const later = await user.call(list, {});

    // assess
    expect(created.body).toMatchObject({ operationID: expect.any(String), success: true, status: 'done' });
    expect(early.body.beneficiaries).toEqual([
      expect.objectContaining({ iban: goWallet.iban, status: 'waiting_for_confirmation' }),
    ]);
    expect(later.body.beneficiaries).toEqual([expect.objectContaining({ status: 'approved' })]);
  });

  it('a cool-down refusal: coolDownPeriod in whole units and "after x" in its message, 400', async () => {
    // prepare
    const { createUser } = givenSandbox();
    const user = await createUser('SANDBOX_COOLDOWN_LISTED');
    await user.call(create, goWallet);
    const listed = await user.call(list, {});
    const [entry] = listed.body.beneficiaries as { id: string }[];

    // act
    const refused = await user.call(transfer, {
      amount: 10,
      senderID: user.accountId,
      receiverID: entry?.id,
    });

    // assess
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({
      operationID: expect.any(String),
      success: false,
      status: 'failed',
      type: 'BENEFICIARY_COOL_DOWN_PERIOD',
      coolDownPeriod: { value: expect.any(Number), unit: 'secs' },
    });
    // What is left of 3.6 s after the calls the bank held (the manual clock moves with each), rounded up.
    const { value } = refused.body.coolDownPeriod as { value: number };
    expect(Number.isInteger(value) && value >= 1 && value <= 4).toBe(true);
    expect(refused.body.msg).toBe(
      `New beneficiary will be activated for fund transfer after ${value} second(s)`,
    );
  });

  it("scenario 2: the details as top-level fields beside receiverID (Go's TransferRequest)", async () => {
    // prepare
    const { createUser } = givenSandbox();
    const user = await createUser('SANDBOX_FIRST_DETAILS');
    await user.call(create, goWallet);
    const [entry] = (await user.call(list, {})).body.beneficiaries as { id: string }[];
    const order = { amount: 10, senderID: user.accountId, receiverID: entry?.id };

    // act
    const without = await user.call(transfer, order);
    const withDetails = await user.call(transfer, { ...order, name: goWallet.name, iban: goWallet.iban });

    // assess
    expect(without.body).toMatchObject({ status: 'failed', type: 'BENEFICIARY_DETAILS_REQUIRED' });
    expect(withDetails.body).toMatchObject({
      operationID: expect.any(String),
      success: true,
      status: 'done',
      reference: expect.any(String),
    });
  });

  it("autoflow: Go's capital Beneficiary, no action, Go's bankID ignored", async () => {
    // prepare
    const { createUser, store } = givenSandbox();
    const user = await createUser('SANDBOX_NO_BENEFICIARY');
    const { type: _type, ...receiver } = goWallet;

    // act
    const reply = await user.call(autoflow, {
      amount: 25.5,
      senderID: user.accountId,
      bankID: '',
      Beneficiary: receiver,
    });

    // assess
    expect(reply.body).toMatchObject({ operationID: expect.any(String), status: 'done' });
    const { transfers } = await store.getUserAssets(user.connectionId);
    expect(transfers).toEqual([expect.objectContaining({ amountMinor: 2550, receiver: expect.anything() })]);
    expect(transfers[0]).not.toHaveProperty('action');
  });

  it('a question resumed on the same path with operationID and userInputs, Go leaving out index 0', async () => {
    // prepare
    const { createUser } = givenSandbox();
    const user = await createUser('SANDBOX_OTP_TWO_QUESTIONS');
    const asked = await user.call(create, goWallet);
    const inputs = asked.body.userInputs as { id: string; index: number }[];

    // act
    const done = await user.call(create, {
      ...goWallet,
      operationID: asked.body.operationID,
      userInputs: inputs.map((input) => ({
        id: input.id,
        ...(input.index ? { index: input.index } : {}),
        answer: '123456',
      })),
    });

    // assess
    expect(asked.body).toMatchObject({ operationID: expect.any(String), status: 'user_input_required' });
    expect(inputs).toHaveLength(2);
    expect(done.body).toMatchObject({ operationID: asked.body.operationID, success: true, status: 'done' });
  });

  it('refuses what money hangs on: a negative amount, an empty senderID', () => {
    expect(
      V2TransferRequest.safeParse({
        appSecret: 'a',
        userSecret: 'b',
        amount: -1,
        senderID: 'x',
        receiverID: 'y',
      }).success,
    ).toBe(false);
    expect(
      V2AutoflowRequest.safeParse({
        appSecret: 'a',
        userSecret: 'b',
        amount: 1,
        senderID: '',
        beneficiary: goWallet,
      }).success,
    ).toBe(false);
  });
});
