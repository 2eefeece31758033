/**
 * The operation read in the `dapi-v2` dialect (`POST /v2/operation/get`, D-opget): the operation's
 * state under `opInfo`, read into the same answers as the spec dialect's read (done, still running,
 * a question) or a refusal naming the operation read (`opInfo.errorType`), so that reconcile takes
 * it as the transfer's own. A mock `fetch` answers as D-opget shows (no `operationID` in the
 * answer): no local stand-in of the v2 provider exists yet (the sandbox's v2 side comes next).
 */
import { describe, expect, it } from 'vitest';
import { ProviderRefusal, ProviderUnknownOutcome } from '#shared/provider/client';
import { answeringAlways, credentials, failureOf, fakeNow } from '../support/fake-provider.ts';

const read = { success: true, status: 'done' };
const opInfo = {
  startDate: '2026-03-01T11:59:00Z',
  endDate: '2026-03-01T12:00:00Z',
  type: '/v2/payment/transfer/create',
};
const operationID = 'CBDUAEAD:f64e6f59-1c2d-4e5f-8a9b-0c1d2e3f4a5b';

function readingAnswered(body: unknown, status = 200) {
  return answeringAlways(body, status).client.getOperation(credentials, { operationID });
}

describe('an operation read under opInfo', () => {
  it('done with transferDetails.reference: done with that reference', async () => {
    const answer = await readingAnswered({
      ...read,
      opInfo: { ...opInfo, status: 'done', transferDetails: { reference: 'REF-7', amount: 250 } },
    });

    expect(answer).toEqual({
      status: 'done',
      id: operationID,
      response: { operationID, success: true, status: 'done', reference: 'REF-7' },
    });
  });

  it.each([
    ['no transferDetails', {}],
    ['transferDetails null', { transferDetails: null }],
    ['a reference that is not a string', { transferDetails: { reference: 42 } }],
  ])('done with %s: referenced by the operation id', async (_name, details) => {
    const answer = await readingAnswered({ ...read, opInfo: { ...opInfo, status: 'done', ...details } });

    expect(answer).toMatchObject({ status: 'done', id: operationID, response: { reference: operationID } });
  });

  it('done, the answer naming the read by another operationID: still the operation asked for', async () => {
    const answer = await readingAnswered({ ...read, operationID: 'read-1', opInfo: { status: 'done' } });

    expect(answer).toMatchObject({ status: 'done', id: operationID, response: { operationID } });
  });

  it('initialized: still running', async () => {
    const answer = await readingAnswered({ ...read, opInfo: { ...opInfo, status: 'initialized' } });

    expect(answer).toEqual({
      status: 'initialized',
      id: operationID,
      response: { operationID, success: true, status: 'initialized' },
    });
  });

  it.each([
    [
      'under opInfo',
      { opInfo: { status: 'user_input_required', userInputs: [{ id: 'otp', query: 'OTP?' }] } },
    ],
    ['beside it', { userInputs: [{ id: 'otp', query: 'OTP?' }], opInfo: { status: 'user_input_required' } }],
  ])('a question with its inputs %s: a question, its index by position', async (_name, body) => {
    const answer = await readingAnswered({ ...read, ...body });

    expect(answer).toMatchObject({
      status: 'user_input_required',
      id: operationID,
      userInputs: [{ id: 'otp', index: 0, query: 'OTP?', answer: '' }],
    });
  });

  it('failed with its errorType: a refusal of that type naming the operation read', async () => {
    const refused = await failureOf(
      readingAnswered({
        ...read,
        opInfo: { ...opInfo, status: 'failed', errorType: 'INSUFFICIENT_BALANCE' },
      }),
    );

    expect(refused).toBeInstanceOf(ProviderRefusal);
    expect(refused).toMatchObject({
      type: 'INSUFFICIENT_BALANCE',
      operationId: operationID,
      httpStatus: 200,
      msg: `operation ${operationID} failed: INSUFFICIENT_BALANCE`,
    });
  });

  it('failed in the envelope too (400, its msg): the same refusal, with the msg', async () => {
    const refused = await failureOf(
      readingAnswered(
        {
          success: false,
          status: 'failed',
          type: 'INSUFFICIENT_BALANCE',
          msg: 'No funds',
          opInfo: { status: 'failed', errorType: 'INSUFFICIENT_BALANCE' },
        },
        400,
      ),
    );

    expect(refused).toMatchObject({
      type: 'INSUFFICIENT_BALANCE',
      msg: 'No funds',
      operationId: operationID,
    });
  });

  it('failed on a cool-down with its period: the end counted from the read', async () => {
    const refused = await failureOf(
      readingAnswered({
        ...read,
        coolDownPeriod: { value: 1, unit: 'hrs' },
        opInfo: { status: 'failed', errorType: 'BENEFICIARY_COOL_DOWN_PERIOD' },
      }),
    );

    expect(refused).toMatchObject({
      type: 'BENEFICIARY_COOL_DOWN_PERIOD',
      coolDownEndsAt: fakeNow + 3_600_000,
    });
  });

  it('the read itself refused (no opInfo): a refusal of the read, naming no operation', async () => {
    const refused = await failureOf(
      readingAnswered({ success: false, status: 'failed', type: 'UNAUTHORIZED', msg: 'Invalid token' }, 401),
    );

    expect(refused).toBeInstanceOf(ProviderRefusal);
    expect(refused).toMatchObject({ type: 'UNAUTHORIZED', httpStatus: 401, operationId: undefined });
  });

  it.each([
    ['failed without a type', { ...read, opInfo: { status: 'failed' } }, 200],
    [
      'done in opInfo, failed in the envelope',
      { success: false, status: 'failed', opInfo: { status: 'done' } },
      200,
    ],
    ['done in opInfo, not a success', { success: false, status: 'done', opInfo: { status: 'done' } }, 200],
    ['done in opInfo, answered 409', { ...read, opInfo: { status: 'done' } }, 409],
    ['a question without inputs', { ...read, opInfo: { status: 'user_input_required' } }, 200],
    ['a status of no SDK', { ...read, opInfo: { status: 'pending' } }, 200],
    ['no opInfo and no failed envelope', { ...read, status: 'done' }, 200],
    [
      'the operation at the top level, as the spec dialect answers',
      { operationID, ...read, reference: 'R' },
      200,
    ],
  ])('%s: an unknown outcome', async (_name, body, status) => {
    const unknown = await failureOf(readingAnswered(body, status));

    expect(unknown).toBeInstanceOf(ProviderUnknownOutcome);
  });
});
