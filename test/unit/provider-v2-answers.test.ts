/**
 * The client in the `dapi-v2` dialect reads the provider's answers into the same answers, refusals
 * and unknown outcomes as the spec dialect's equivalents: `operationID` on every answer, lenient
 * questions, metadata and lists, a done transfer's reference, a cool-down refusal's period. A mock
 * `fetch` answers the shapes docs/provider-v2.md records: no local stand-in of the v2 provider exists
 * yet (the sandbox's v2 side comes next). The operation read's `opInfo`: provider-v2-operation.test.ts.
 */
import { describe, expect, it } from 'vitest';
import type { ProviderClient } from '#shared/provider/client';
import { ProviderRefusal, ProviderUnknownOutcome } from '#shared/provider/client';
import {
  answeringAlways,
  credentials,
  failureOf,
  fakeNow,
  inlineWallet,
  metadata,
  walletBeneficiary,
} from '../support/fake-provider.ts';

const order = { amountMinor: 1_000, currency: 'AED' as const, senderID: 'acc_1' };
type Call = (client: ProviderClient) => Promise<unknown>;
const calls: Record<string, { call: Call; idField: 'jobID' | 'operationID'; fields: object }> = {
  metadata: {
    call: (c) => c.getMetadata(credentials),
    idField: 'jobID',
    fields: { accountsMetadata: metadata },
  },
  list: {
    call: (c) => c.listBeneficiaries(credentials),
    idField: 'jobID',
    fields: {
      beneficiaries: [{ id: 'ben_1', name: 'Acme', accountNumber: '123', type: 'local', status: 'approved' }],
    },
  },
  creation: {
    call: (c) => c.createBeneficiary(credentials, walletBeneficiary),
    idField: 'jobID',
    fields: {},
  },
  transfer: {
    call: (c) => c.createTransfer(credentials, { ...order, receiverID: 'ben_1' }, undefined, { sync: false }),
    idField: 'operationID',
    fields: { reference: 'REF-1' },
  },
  autoflow: {
    call: (c) => c.createAutoflowTransfer(credentials, { ...order, beneficiary: inlineWallet }),
    idField: 'operationID',
    fields: { reference: 'REF-2' },
  },
};

/** An answer without its operation's id field, to hold the two dialects' answers side by side. */
function withoutIds(answer: unknown) {
  const { response, ...rest } = answer as { response: Record<string, unknown> };
  const { jobID: _job, operationID: _operation, ...fields } = response;
  return { ...rest, response: fields };
}

describe('dapi-v2 answers read as the spec dialect reads its own', () => {
  it.each(Object.entries(calls))('%s, done', async (_name, { call, idField, fields }) => {
    const answered = { success: true, status: 'done', ...fields };
    const spec = await call(answeringAlways({ [idField]: 'op_1', ...answered }, 200, 'spec').client);
    const v2 = await call(answeringAlways({ operationID: 'op_1', ...answered }).client);

    expect(v2).toMatchObject({ status: 'done', id: 'op_1', response: { operationID: 'op_1' } });
    expect(withoutIds(v2)).toEqual(withoutIds(spec));
  });

  it.each(Object.entries(calls))('%s, a refusal', async (_name, { call, idField }) => {
    const failed = { success: false, status: 'failed', type: 'INSUFFICIENT_BALANCE', msg: 'No funds' };
    const spec = await failureOf(call(answeringAlways({ [idField]: 'op_1', ...failed }, 400, 'spec').client));
    const v2 = await failureOf(call(answeringAlways({ operationID: 'op_1', ...failed }, 400).client));

    expect(v2).toBeInstanceOf(ProviderRefusal);
    expect(v2).toEqual(spec);
    expect(v2).toMatchObject({ type: 'INSUFFICIENT_BALANCE', httpStatus: 400, operationId: 'op_1' });
  });

  it.each(Object.entries(calls))(
    '%s, without operationID (a jobID alone): an unknown outcome',
    async (_n, { call }) => {
      const unknown = await failureOf(
        call(answeringAlways({ jobID: 'job_1', success: true, status: 'done' }).client),
      );

      expect(unknown).toBeInstanceOf(ProviderUnknownOutcome);
    },
  );

  it.each([
    ['a 504', 504, { success: false, status: 'failed', type: 'GATEWAY_TIMEOUT', msg: 'late' }],
    ['a status of no SDK', 200, { operationID: 'op_1', success: true, status: 'pending' }],
    ['a question without inputs', 200, { operationID: 'op_1', success: true, status: 'user_input_required' }],
  ])('a transfer answered with %s: an unknown outcome', async (_name, status, body) => {
    const { client } = answeringAlways(body, status);

    const unknown = await failureOf(client.createTransfer(credentials, { ...order, receiverID: 'ben_1' }));

    expect(unknown).toBeInstanceOf(ProviderUnknownOutcome);
  });
});

describe('dapi-v2 answers, leniently where the provider is', () => {
  it('a question whose inputs leave out index (0) and query: matched by id, index by position', async () => {
    const { client } = answeringAlways({
      operationID: 'op_q',
      success: true,
      status: 'user_input_required',
      userInputs: [{ id: 'otp' }, { id: 'secret_question', index: 1, query: 'Pet?', answer: '' }],
    });

    const asked = await client.getMetadata(credentials);

    expect(asked).toMatchObject({
      status: 'user_input_required',
      id: 'op_q',
      userInputs: [
        { id: 'otp', index: 0, query: '', answer: '' },
        { id: 'secret_question', index: 1, query: 'Pet?', answer: '' },
      ],
    });
  });

  it('metadata with nulls for strings and address lines left out, its numbers integers', async () => {
    const { client } = answeringAlways({
      operationID: 'op_1',
      success: true,
      status: 'done',
      accountsMetadata: { ...metadata, swiftCode: null, branchName: null, address: { line1: 'Street 1' } },
    });

    const answer = await client.getMetadata(credentials);

    expect(answer.response.accountsMetadata).toEqual({
      ...metadata,
      swiftCode: '',
      branchName: '',
      address: { line1: 'Street 1', line2: '', line3: '' },
    });
    expect(answer.response.accountsMetadata?.transferBounds[0]?.minimum).toBe(10);
  });

  it.each([
    ['a minimum as a string', { transferBounds: [{ ...metadata.transferBounds[0], minimum: '10' }] }],
    [
      'a currency code of two letters',
      { transferBounds: [{ minimum: 1, currency: { code: 'AE', name: 'x' }, type: 'local' }] },
    ],
    ['no cool-down', { beneficiaryCoolDownPeriod: null }],
  ])('metadata with %s stays an unknown outcome: strict where money is at stake', async (_name, change) => {
    const { client } = answeringAlways({
      operationID: 'op_1',
      success: true,
      status: 'done',
      accountsMetadata: { ...metadata, ...change },
    });

    expect(await failureOf(client.getMetadata(credentials))).toBeInstanceOf(ProviderUnknownOutcome);
  });

  it('listed beneficiaries: iban beside accountNumber, read as the whole of the two', async () => {
    const { client } = answeringAlways({
      operationID: 'op_1',
      success: true,
      status: 'done',
      beneficiaries: [
        {
          id: 'ben_1',
          name: 'A',
          accountNumber: '****3456',
          iban: 'AE070331234567890123456',
          type: 'local',
          status: 'approved',
        },
        {
          id: 'ben_2',
          name: null,
          iban: 'AE460261001015834761201',
          type: 'same',
          status: 'waiting_for_confirmation',
        },
        { id: 'ben_3', name: 'C', accountNumber: '****9999', iban: '', type: 'local', status: 'approved' },
      ],
    });

    const answer = await client.listBeneficiaries(credentials);

    expect(answer.response.beneficiaries).toEqual([
      { id: 'ben_1', name: 'A', accountNumber: 'AE070331234567890123456', type: 'local', status: 'approved' },
      {
        id: 'ben_2',
        name: '',
        accountNumber: 'AE460261001015834761201',
        type: 'same',
        status: 'waiting_for_confirmation',
      },
      { id: 'ben_3', name: 'C', accountNumber: '****9999', type: 'local', status: 'approved' },
    ]);
  });

  it('a done transfer without a reference is referenced by its operationID', async () => {
    const { client } = answeringAlways({ operationID: 'CBDUAEAD:op-9', success: true, status: 'done' });

    const done = await client.createTransfer(credentials, { ...order, receiverID: 'ben_1' });

    expect(done).toMatchObject({
      status: 'done',
      id: 'CBDUAEAD:op-9',
      response: { reference: 'CBDUAEAD:op-9' },
    });
  });

  it('a token exchange that also answers tokenID, userID and operationID', async () => {
    const { client } = answeringAlways({
      operationID: 'op_1',
      success: true,
      status: 'done',
      accessToken: 'token-9',
      tokenID: 'tok',
      userID: 'user',
    });

    expect(await client.exchangeToken('app', 'code', 'conn')).toEqual({
      success: true,
      status: 'done',
      accessToken: 'token-9',
    });
  });
});

describe('a dapi-v2 cool-down refusal names a period, read as the instant it ends', () => {
  const coolDown = {
    operationID: 'op_1',
    success: false,
    status: 'failed',
    type: 'BENEFICIARY_COOL_DOWN_PERIOD',
  };
  const transfer = (body: object) =>
    failureOf(
      answeringAlways({ ...coolDown, ...body }, 400).client.createTransfer(credentials, {
        ...order,
        receiverID: 'b',
      }),
    );
  const hour = 3_600_000;

  it.each([
    [
      'coolDownPeriod in hours',
      { coolDownPeriod: { value: 2, unit: 'hrs' }, msg: 'later' },
      fakeNow + 2 * hour,
    ],
    [
      'coolDownPeriod in minutes',
      { coolDownPeriod: { value: 30, unit: 'mins' }, msg: 'later' },
      fakeNow + hour / 2,
    ],
    [
      'only the message',
      { msg: 'New beneficiary will be activated for fund transfer after 3 hour(s)' },
      fakeNow + 3 * hour,
    ],
    [
      'an unreadable period and a message',
      { coolDownPeriod: { value: 'x' }, msg: 'after 1 hour(s)' },
      fakeNow + hour,
    ],
    [
      'an instant in the message',
      { msg: 'Cooling down until 2026-03-01T18:00:00Z' },
      Date.parse('2026-03-01T18:00:00Z'),
    ],
    ['no period and no msg', {}, undefined],
  ])('%s', async (_name, body, endsAt) => {
    const refused = await transfer(body);

    expect(refused).toBeInstanceOf(ProviderRefusal);
    expect(refused).toMatchObject({
      type: 'BENEFICIARY_COOL_DOWN_PERIOD',
      operationId: 'op_1',
      coolDownEndsAt: endsAt,
    });
  });

  it('another refusal with a period names no cool-down end', async () => {
    const refused = await failureOf(
      answeringAlways(
        { ...coolDown, type: 'INSUFFICIENT_BALANCE', msg: 'after 2 hour(s)' },
        400,
      ).client.getMetadata(credentials),
    );

    expect(refused).toMatchObject({ type: 'INSUFFICIENT_BALANCE', coolDownEndsAt: undefined });
  });
});
