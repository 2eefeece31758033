/**
 * The dialect table (`shared/provider/interface/dialects.ts`): its small functions, and that the
 * client speaking the `spec` dialect sends every request exactly as before the dialects (each body
 * written out here as it went on the wire), so nothing changes for a deployment that names none.
 */
import { describe, expect, it } from 'vitest';
import {
  coolDownMs,
  dapiV2Dialect,
  dialectOf,
  periodInMessage,
  sharedPaths,
  specDialect,
  written,
} from '#shared/provider/interface/dialects';
import { NewBeneficiary } from '#shared/provider/interface/schemas';
import { answeringAlways, credentials, failureOf } from '../support/fake-provider.ts';

describe('the dialect table', () => {
  it('is spec unless named', () => {
    expect(dialectOf()).toBe(specDialect);
    expect(dialectOf('dapi-v2')).toBe(dapiV2Dialect);
  });

  it('puts every v2 call under /v2 and names every v2 operation by operationID', () => {
    expect(Object.values(dapiV2Dialect.paths).every((path) => path.startsWith('/v2/'))).toBe(true);
    expect(new Set(Object.values(dapiV2Dialect.idFields))).toEqual(new Set(['operationID']));
  });

  it('shares the balance and the operation read between the dialects', () => {
    expect(sharedPaths().sort()).toEqual(['/v2/data/balance/get', '/v2/operation/get']);
  });

  it('leaves out empty strings only where the dialect does', () => {
    const body = { name: 'A', sortCode: '', address: { line1: '' } };
    expect(written(specDialect, body)).toEqual(body);
    expect(written(dapiV2Dialect, body)).toEqual({ name: 'A', address: { line1: '' } });
  });

  it.each([
    [{ value: 2, unit: 'hrs' }, 7_200_000],
    [{ value: 2, unit: 'hours' }, 7_200_000],
    [{ value: 1, unit: 'hour(s)' }, 3_600_000],
    [{ value: 30, unit: 'mins' }, 1_800_000],
    [{ value: 90, unit: 'Seconds' }, 90_000],
    [{ value: 1, unit: 'day' }, 86_400_000],
    [{ value: 3, unit: 'fortnights' }, 10_800_000],
    [{ value: 1, unit: 'constructor' }, 3_600_000],
  ])('reads the period %j as %i ms (an unknown unit as hours)', (period, ms) => {
    expect(coolDownMs(period)).toBe(ms);
  });

  it.each([
    ['New beneficiary will be activated for fund transfer after 2 hour(s)', { value: 2, unit: 'hour' }],
    ['activated after 45 minutes', { value: 45, unit: 'minutes' }],
    ['after 1 day', { value: 1, unit: 'day' }],
    ['Cooling down until 2026-03-01T14:00:00Z', undefined],
    ['after a while', undefined],
    ['after 3 toString', undefined],
  ])('finds in %j the period %j', (msg, period) => {
    expect(periodInMessage(msg)).toEqual(period);
  });
});

describe('the spec dialect sends what it always sent', () => {
  const done = { jobID: 'job_1', operationID: 'op_1', success: true, status: 'done', accessToken: 't' };
  const answer = { id: 'x1', userInputs: [{ id: 'otp', index: 0, query: 'q', answer: '123456' }] };
  const beneficiary = {
    swiftCode: 'WALTAEAD',
    sortCode: '',
    bankName: '',
    name: 'Acme',
    iban: 'AE070331234567890123456',
    accountNumber: '',
    branchName: '',
    branchAddress: '',
  };
  const inline = { ...beneficiary, address: { line1: 'a', line2: 'b', line3: 'c' }, country: 'AE' };
  const secrets = '"appSecret":"app-secret","userSecret":"user-secret"';
  const inputs = '"userInputs":[{"id":"otp","index":0,"query":"q","answer":"123456"}]';
  const newBeneficiary =
    '"type":"local","swiftCode":"WALTAEAD","sortCode":"","bankName":"","name":"Acme","iban":"AE070331234567890123456","accountNumber":"","branchName":"","branchAddress":"","country":"UNITED ARAB EMIRATES"';
  const inlineText = `"beneficiary":${JSON.stringify(inline)}`;

  it('for every call, with and without answers to a question', async () => {
    const { client, sent } = answeringAlways(done, 200, 'spec');
    await client.exchangeToken('app-secret', 'code', 'conn');
    for (const asked of [undefined, answer]) {
      await client.getMetadata(credentials, asked);
      await client.listBeneficiaries(credentials, asked);
      await client.createBeneficiary(
        credentials,
        NewBeneficiary.parse({ ...beneficiary, country: 'UNITED ARAB EMIRATES' }),
        asked,
      );
      const order = { amountMinor: 12_345, currency: 'AED' as const, senderID: 's', receiverID: 'r' };
      await client.createTransfer(credentials, order, asked);
      const withDetails = { ...order, currency: 'KWD' as const, beneficiary: inline };
      await client.createTransfer(credentials, withDetails, asked, { sync: false });
      const inlineOrder = { amountMinor: 5, currency: 'AED' as const, senderID: 's', beneficiary: inline };
      await client.createAutoflowTransfer(credentials, inlineOrder, asked);
      await client.getCardBalance(credentials, 'card', asked);
    }
    await client.getOperation(credentials, { operationID: 'op' });
    await client.getOperation(credentials, { jobID: 'jb' });

    const job = `,"jobID":"x1",${inputs}`;
    const op = `,"operationID":"x1",${inputs}`;
    const calls = (tail: (id: string) => string) => [
      ['/v1/metadata/accounts/get', `{${secrets},"sync":true${tail(job)}}`],
      ['/v1/payment/beneficiaries/get', `{${secrets},"sync":true${tail(job)}}`],
      ['/v1/payment/beneficiaries/create', `{${secrets},"sync":true,${newBeneficiary}${tail(job)}}`],
      [
        '/v1/payment/transfer/create',
        `{${secrets},"sync":true,"amount":123.45,"senderID":"s","receiverID":"r"${tail(op)}}`,
      ],
      [
        '/v1/payment/transfer/create',
        `{${secrets},"sync":false,"amount":12.345,"senderID":"s","receiverID":"r",${inlineText}${tail(op)}}`,
      ],
      [
        '/v1/payment/transfer/autoflow',
        `{${secrets},"amount":0.05,"action":"transfer","senderID":"s",${inlineText}${tail(op)}}`,
      ],
      ['/v2/data/balance/get', `{${secrets},"cardID":"card"${tail(op)}}`],
    ];
    expect(sent.map((request) => [request.path, request.text])).toEqual([
      ['/v1/auth/ExchangeToken', '{"appSecret":"app-secret","accessCode":"code","connectionID":"conn"}'],
      ...calls(() => ''),
      ...calls((id) => id),
      ['/v2/operation/get', `{${secrets},"operationID":"op"}`],
      ['/v2/operation/get', `{${secrets},"jobID":"jb"}`],
    ]);
    expect(sent[0]?.headers).toEqual({ 'content-type': 'application/json' });
    expect(sent[1]?.headers).toEqual({ 'content-type': 'application/json', authorization: 'Bearer token-1' });
  });

  it('still reads a cool-down end from the instant in msg, and no coolDownPeriod', async () => {
    const { client } = answeringAlways(
      {
        operationID: 'op_1',
        success: false,
        status: 'failed',
        type: 'BENEFICIARY_COOL_DOWN_PERIOD',
        msg: 'The beneficiary is cooling down until 2026-03-01T15:00:00Z',
        coolDownPeriod: { value: 1, unit: 'hrs' },
      },
      422,
      'spec',
    );
    const order = { amountMinor: 1_000, currency: 'AED' as const, senderID: 's', receiverID: 'r' };
    const refused = await failureOf(client.createTransfer(credentials, order));
    expect(refused).toMatchObject({ coolDownEndsAt: Date.parse('2026-03-01T15:00:00Z') });
  });
});
