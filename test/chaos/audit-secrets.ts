/**
 * The credentials and secrets check of the audit: no finished deposit keeps its sealed credentials
 * or answers, and no plaintext secret (access token, user secret, application secret, one-time
 * password) appears in any item of the deposits table or any line the process wrote.
 * `secretFinder` is how a text is scanned.
 */
import type { AuditInput, AuditScope } from './audit.ts';
import type { DepositItem } from './clients.ts';

/** What a deposit keeps sealed: on its item, or in the item of its sealed credentials. */
export function sealedKeptBy(input: AuditInput, item: DepositItem): string[] {
  const kept = ['sealedCredentials', 'sealedAnswers'].filter((field) => field in item);
  const ownItem = input.items.some((other) => other.pk === item.pk && other.sk === 'SEALED');
  return ownItem ? [...kept, 'its sealed credentials item'] : kept;
}

export function checkSecrets({ input, items, name, finding }: AuditScope) {
  const keptCredentials: string[] = [];
  for (const run of input.runs) {
    const item = run.id ? items.get(run.id) : undefined;
    if (!item || (item.status !== 'done' && item.status !== 'failed')) continue;
    const kept = sealedKeptBy(input, item);
    if (kept.length > 0) keptCredentials.push(`${name(run)} ${item.status} keeps ${kept.join(', ')}`);
  }
  finding('finished deposits that keep credentials', keptCredentials);
  const find = secretFinder(input.secrets, input.otps);
  const leakingItems = input.items
    .map((item) => ({ item, hits: find(JSON.stringify(item)) }))
    .filter(({ hits }) => hits.length > 0)
    .map(({ item, hits }) => `${item.pk} ${item.sk}: ${hits.join(', ')}`);
  finding('deposits table items holding a plaintext secret', leakingItems);
  const leakingLines = input.output
    .split('\n')
    .map((line, index) => ({ index, hits: find(line) }))
    .filter(({ hits }) => hits.length > 0)
    .map(({ index, hits }) => `line ${index + 1}: ${hits.join(', ')}`);
  finding('output lines holding a plaintext secret', leakingLines);
  return {
    tableItemsScanned: input.items.length,
    finishedDepositsChecked: input.runs.filter((run) => {
      const status = run.id ? items.get(run.id)?.status : undefined;
      return status === 'done' || status === 'failed';
    }).length,
    outputLinesScanned: input.output.split('\n').length,
    secretsLookedFor: input.secrets.length + input.otps.length,
  };
}

/**
 * Finds plaintext secrets in a text. Secrets are long random tokens: they are indexed by their first
 * eight characters, so a text is scanned once whatever their number. A one-time password is short
 * and all digits: it counts only standing alone (not inside a longer run of letters or digits, such
 * as an account number).
 */
export function secretFinder(secrets: string[], otps: string[]): (text: string) => string[] {
  const byPrefix = new Map<string, string[]>();
  for (const secret of secrets) {
    if (secret.length < 8) throw new Error('a secret to look for is too short to be told from noise');
    const prefix = secret.slice(0, 8);
    byPrefix.set(prefix, [...(byPrefix.get(prefix) ?? []), secret]);
  }
  const otpPatterns = [...new Set(otps)].map(
    (otp) => new RegExp(`(?<![0-9A-Za-z])${otp.replace(/[^0-9A-Za-z]/g, '')}(?![0-9A-Za-z])`),
  );
  const redact = (secret: string) => `${secret.slice(0, 6)}...(${secret.length} chars)`;
  return (text) => {
    const hits = new Set<string>();
    for (let index = 0; index + 8 <= text.length; index += 1) {
      const candidates = byPrefix.get(text.slice(index, index + 8));
      if (!candidates) continue;
      for (const secret of candidates) if (text.startsWith(secret, index)) hits.add(redact(secret));
    }
    for (const pattern of otpPatterns)
      if (pattern.test(text)) hits.add(`one-time password ${pattern.source}`);
    return [...hits];
  };
}
