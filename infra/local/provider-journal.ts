/**
 * The provider journal, for the local stack only: every request this process's provider client sends,
 * by connection (the digest of its access token), so a test can say exactly which calls a deposit
 * made. A bare SHA-256 on purpose: the journal is a map of this process's own, in memory, written
 * and read only here (never compared with a deposit's `ownerKey`, which is keyed), and it keeps no
 * token in the clear. Production code carries no seam for it: `installProviderJournal` wraps the
 * client's one sending method on its prototype, as the crash points wrap its operations. Read and
 * cleared through `POST /_local/provider-calls` on the deposits gateway.
 */
import { ProviderClient } from '#shared/provider/client';
import { digest } from '#shared/secrets';

export interface JournalEntry {
  path: string;
  /** Epoch ms the request left. */
  at: number;
}

/** A connection's calls kept at most (the oldest go first), and connections kept at most. */
const PER_CONNECTION = 500;
const CONNECTIONS = 5_000;

const journal = new Map<string, JournalEntry[]>();

export const providerJournal = {
  /** The calls made for the connection whose access token is given, oldest first. */
  of(accessToken: string): JournalEntry[] {
    return [...(journal.get(digest(accessToken)) ?? [])];
  },
  clear(accessToken: string) {
    journal.delete(digest(accessToken));
  },
};

function record(ownerKey: string, entry: JournalEntry) {
  const calls = journal.get(ownerKey) ?? [];
  if (calls.length === 0) {
    if (journal.size >= CONNECTIONS) journal.delete(journal.keys().next().value as string);
    journal.set(ownerKey, calls);
  }
  calls.push(entry);
  if (calls.length > PER_CONNECTION) calls.shift();
}

let installed = false;

/** Wraps the sending method of this process's provider client; once. */
export function installProviderJournal() {
  if (installed) return;
  installed = true;
  type Post = (path: string, accessToken: string | undefined, body: unknown) => Promise<unknown>;
  const client = ProviderClient.prototype as unknown as { post: Post };
  const post = client.post;
  if (typeof post !== 'function') throw new Error('ProviderClient has no post');
  client.post = function (this: ProviderClient, path, accessToken, body) {
    if (accessToken !== undefined) record(digest(accessToken), { path, at: Date.now() });
    return post.call(this, path, accessToken, body);
  };
}
