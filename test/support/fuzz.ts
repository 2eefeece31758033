/**
 * The fuzz of both APIs' validation tests: odd and oversized bodies and headers, and the check that
 * every answer is under 500, JSON, and a failed envelope with a request id when it is a 4xx.
 */
import { expect } from 'vitest';

export const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

/** Odd bodies; those that are objects carry `secrets` so they reach past authentication. */
export function oddBodies(secrets: Record<string, string>): string[] {
  const withSecrets = (fields: Record<string, unknown>) => JSON.stringify({ ...secrets, ...fields });
  const secretsJson = JSON.stringify(secrets).slice(1, -1);
  const prefix = secretsJson ? `${secretsJson},` : '';
  return [
    '42',
    '-1e999',
    '"just a string"',
    'true',
    '   ',
    withSecrets({}),
    withSecrets({ a: { b: { c: { d: [1, { e: null }] } } }, sync: { nested: true } }),
    withSecrets({ sync: true, name: 'x'.repeat(600_000) }),
    nested(5_000),
    `{${prefix}"sync":true,"userInputs":${nested(2_000)},"jobID":"job_x","operationID":"op_x"}`,
    withSecrets({
      sync: true,
      name: '\u202e🏦 Ünïcødé \u0000 名前',
      iban: 'AE07\u00a00331234567890123456',
      swiftCode: '𝔖𝔚𝔉𝔗',
      country: 'ÅÆ',
      cardID: 'card_\ud83d',
      senderID: '\uffff',
      receiverID: '../../etc/passwd',
      action: '<script>',
      amount: 10,
    }),
    withSecrets({
      sync: 1,
      amount: 'ten',
      senderID: [],
      receiverID: {},
      cardID: null,
      beneficiary: 'x',
      userInputs: 'x',
      operationID: 7,
      jobID: false,
      bankId: 3,
      connectionID: [],
      accessCode: {},
      faults: 'all',
      balance: 'lots',
      accessCodeTtlSeconds: -1,
    }),
    `{${prefix}"__proto__":{"polluted":true,"sync":true,"isAdmin":true},"sync":true}`,
    `{${prefix}"constructor":{"prototype":{"polluted":true}},"sync":true,"amount":1e308,"senderID":"x","receiverID":"y"}`,
    withSecrets({
      sync: true,
      amount: 1e-300,
      senderID: 'acc_x',
      receiverID: 'ben_x',
      cardID: 'card_x',
      userInputs: [{ id: 'otp', index: -1, query: 1, answer: null }],
      jobID: 'job_x',
    }),
    withSecrets({ sync: false, operationID: '', jobID: '', bankId: '', connectionID: '', accessCode: '' }),
    // Oversized: every id a few KB long, text fields of 100 KB, arrays of a thousand items.
    withSecrets({
      sync: true,
      amount: 10,
      ...Object.fromEntries(ids.map((field) => [field, long])),
      action: long,
    }),
    withSecrets({
      sync: true,
      amount: 10,
      senderID: 'acc_x',
      action: 'deposit',
      type: huge,
      name: huge,
      iban: huge,
      swiftCode: long,
      country: huge,
      bankName: huge,
      branchAddress: huge,
      address: { line1: huge, line2: '', line3: '' },
      beneficiary: { name: huge, iban: long, swiftCode: long, country: long, address: { line1: huge } },
    }),
    withSecrets({
      sync: true,
      amount: 10,
      senderID: 'acc_x',
      receiverID: 'ben_x',
      cardID: 'card_x',
      operationID: 'op_x',
      jobID: 'job_x',
      connectionID: 'conn_x',
      userInputs: Array.from({ length: 1_000 }, (_, index) => ({
        id: 'otp',
        index,
        query: long,
        answer: long,
      })),
      faults: Array.from({ length: 1_000 }, () => ({ latencyMs: 1, path: `/${short}` })),
    }),
    JSON.stringify({ ...secrets, appSecret: huge, userSecret: huge, accessCode: huge, sync: true }),
    // Over the 1 MiB body limit: refused by the handler's own middleware (413), as in AWS.
    withSecrets({ sync: true, padding: 'p'.repeat(1_500_000) }),
  ];
}

const long = 'x'.repeat(5_000);
/** Text fields of 100 KB: the body with nine of them stays under the 1 MiB limit, so the fields are checked. */
const huge = 'y'.repeat(100_000);
const short = 'q'.repeat(300);
const ids = [
  'senderID',
  'receiverID',
  'cardID',
  'operationID',
  'jobID',
  'connectionID',
  'bankId',
  'accessCode',
  'walletAccountID',
  'cursor',
];
/** Oversized and odd headers: bearer tokens of 10 KB (ASCII, and two-byte characters), a long key. */
export const oddHeaders = (user: { accessToken: string }): Record<string, string>[] => [
  { authorization: `Bearer ${'z'.repeat(10_000)}` },
  { authorization: `Bearer ${'é'.repeat(1_100)}.at_x` },
  { authorization: `Bearer ${user.accessToken}`, 'idempotency-key': long },
];

/** Checks every reply: under 500, JSON, a failed envelope with a request id when 4xx. */
export function assessReplies(
  label: string,
  sends: { body: string }[],
  replies: { status: number; text: string }[],
) {
  expect(replies).toHaveLength(sends.length);
  for (const [index, { status, text }] of replies.entries()) {
    const sent = sends[index]?.body.slice(0, 80);
    expect(status, `${label} with ${sent}: ${text.slice(0, 200)}`).toBeLessThan(500);
    let body: unknown;
    expect(
      () => {
        body = JSON.parse(text);
      },
      `not JSON: ${text.slice(0, 200)}`,
    ).not.toThrow();
    expect(body, `${sent}`).toBeTypeOf('object');
    expect(body).not.toBeNull();
    const envelope = body as Record<string, unknown>;
    if (status >= 400) {
      expect(envelope, `${status} for ${sent}`).toEqual(
        expect.objectContaining({
          success: false,
          status: 'failed',
          type: expect.any(String),
          msg: expect.any(String),
          requestId: expect.any(String),
        }),
      );
    } else {
      expect(status, `${sent}`).toBeGreaterThanOrEqual(200);
      expect(envelope.success, `${sent}`).not.toBe(false);
      expect(envelope.status, `${sent}`).not.toBe('failed');
    }
  }
}
