/**
 * The caller's business fields of a create (`clientReference`, `metadata`; bounds in `deposit.ts`):
 * kept on the deposit as given, part of its fingerprint (the same key with other fields is another
 * request), and never a secret: a field that holds one of the request's secrets (its token, its
 * app or user secret) is refused, named, before anything is stored, so none can reach a view, a
 * webhook or a log through them. (Secrets shorter than 6 characters, which no real token or secret
 * is, are not looked for: every text would hold one.)
 */

import type { Deposit } from './deposit.ts';
import { DepositError } from './errors.ts';

export interface BusinessRequest {
  clientReference?: string | undefined;
  metadata?: Record<string, string> | undefined;
}

type Secrets = { accessToken: string; appSecret: string; userSecret: string };

/** The fields as the deposit keeps them; BAD_REQUEST naming each field that holds a secret. */
export function businessFieldsOf(
  request: BusinessRequest & Secrets,
): Pick<Deposit, 'clientReference' | 'metadata'> {
  const secrets = [request.accessToken, request.appSecret, request.userSecret].filter(
    (secret) => secret.length >= 6,
  );
  const holdsSecret = (text: string) => secrets.some((secret) => text.includes(secret));
  const fields: [string, string][] = [
    ...(request.clientReference === undefined ? [] : [['clientReference', request.clientReference]]),
    ...Object.entries(request.metadata ?? {}).flatMap(([key, value]): [string, string][] => [
      [`metadata.${key}`, key],
      [`metadata.${key}`, value],
    ]),
  ] as [string, string][];
  const problems = [
    ...new Set(
      fields
        .filter(([, text]) => holdsSecret(text))
        .map(([field]) => `${field}: holds a secret of this request`),
    ),
  ];
  if (problems.length > 0)
    throw new DepositError('BAD_REQUEST', `Invalid request: ${problems.join('; ')}`, problems);
  return {
    ...(request.clientReference === undefined ? {} : { clientReference: request.clientReference }),
    ...(request.metadata === undefined ? {} : { metadata: { ...request.metadata } }),
  };
}

/**
 * What the fields add to a deposit's fingerprint: nothing without them (so a repeat of a create made
 * before deposits had business fields still matches), else both, the map in key order.
 */
export function fingerprintOf(fields: Pick<Deposit, 'clientReference' | 'metadata'>): unknown[] {
  if (fields.clientReference === undefined && fields.metadata === undefined) return [];
  const metadata = fields.metadata && Object.entries(fields.metadata).sort(([a], [b]) => (a < b ? -1 : 1));
  return [fields.clientReference ?? null, metadata ?? null];
}
