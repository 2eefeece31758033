/**
 * A provider played by a fake `fetch`, for the client's unit tests: it answers each request with
 * what `answer` gives for its path and body, and keeps what it was sent (path, headers, the body as
 * sent and parsed). No local stand-in of the provider's v2 dialect exists yet (the sandbox's v2 side
 * comes after the client's), so the v2 tests answer the shapes docs/provider-v2.md records.
 */
import { ProviderClient } from '#shared/provider/client';
import type { DialectName } from '#shared/provider/interface/dialects';
import { InlineBeneficiary, NewBeneficiary } from '#shared/provider/interface/schemas';

export interface SentRequest {
  path: string;
  headers: Record<string, string>;
  /** The body exactly as sent. */
  text: string;
  body: Record<string, unknown>;
}

export interface FakeAnswer {
  status?: number;
  body: unknown;
}

/** The clock the fake provider's clients read (epoch ms). */
export const fakeNow = Date.parse('2026-03-01T12:00:00Z');

export const credentials = { accessToken: 'token-1', appSecret: 'app-secret', userSecret: 'user-secret' };

export function fakeProvider(
  answer: (path: string, body: Record<string, unknown>) => FakeAnswer,
  options: { dialect?: DialectName; autoflowAction?: string } = {},
) {
  const sent: SentRequest[] = [];
  const fetch = async (url: string | URL | Request, init?: RequestInit) => {
    const path = new URL(String(url)).pathname;
    const text = String(init?.body);
    const body = JSON.parse(text) as Record<string, unknown>;
    sent.push({ path, headers: { ...(init?.headers as Record<string, string>) }, text, body });
    const { status = 200, body: answered } = answer(path, body);
    return new Response(JSON.stringify(answered), {
      status,
      headers: { 'content-type': 'application/json' },
    });
  };
  const client = new ProviderClient({
    baseUrl: 'https://api.provider.test',
    timeoutMs: 1_000,
    fetch,
    now: () => fakeNow,
    ...options,
  });
  return { client, sent };
}

/** A provider that answers every request with the same body (and status). */
export function answeringAlways(body: unknown, status = 200, dialect: DialectName = 'dapi-v2') {
  return fakeProvider(() => ({ status, body }), { dialect });
}

/** What a call that fails is refused or left unknown with. */
export async function failureOf(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected the call to fail');
    },
    (error: unknown) => error,
  );
}

export const inlineWallet = InlineBeneficiary.parse({
  swiftCode: 'WALTAEAD',
  name: 'Acme Wallet LLC',
  iban: 'AE070331234567890123456',
  accountNumber: '1234567890123456',
  country: 'AE',
  address: { line1: 'Sheikh Zayed Road', line2: 'Dubai', line3: 'United Arab Emirates' },
});

export const walletBeneficiary = NewBeneficiary.parse({
  swiftCode: 'WALTAEAD',
  name: 'Acme Wallet LLC',
  iban: 'AE070331234567890123456',
  accountNumber: '1234567890123456',
  country: 'UNITED ARAB EMIRATES',
  address: { line1: 'Sheikh Zayed Road', line2: 'Dubai', line3: 'United Arab Emirates' },
});

/** Metadata as the spec writes it (and as the v2 dialect reads into). */
export const metadata = {
  swiftCode: 'CBDUAEAD',
  sortCode: null,
  bankName: 'Sandbox Bank',
  branchName: 'Main',
  branchAddress: 'Dubai',
  address: { line1: 'Street 1', line2: 'Dubai', line3: 'AE' },
  transferBounds: [{ minimum: 10, currency: { code: 'AED', name: 'UAE Dirham' }, type: 'local' }],
  beneficiaryCoolDownPeriod: { value: 24, unit: 'hrs' },
  isCreateBeneficiaryEndpointRequired: true,
  willNewlyAddedBeneficiaryExistBeforeCoolDownPeriod: false,
  country: { code: 'AE', name: 'United Arab Emirates' },
  transactionRange: { unit: 'days', value: 90 },
};
