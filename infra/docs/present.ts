/**
 * The pages state the present: a page of the README or `docs/` names no issue (the reader has no
 * tracker to follow it to), no machine a run was made on (the reader is not on it), and no file or
 * document the repository does not hold. `findings` reads one page's text and says each such
 * mention with its line; the docs test runs it over every page.
 */
import { dirname, join, normalize } from 'node:path';

export type FindingKind = 'issue' | 'machine' | 'missing path' | 'missing document';

export interface Finding {
  kind: FindingKind;
  line: number;
  text: string;
}

/** Folders of the repository that a page names paths in, bare or in backticks. */
const repoFolders = ['shared', 'infra', 'test', 'docs', 'functions', 'packages', '.ci'];

/** "issue 22", "issues 20 and 22", "PR #31", "pull request 4". */
const issueWords = /\b(?:issues?|PRs?|pull requests?)\s+#?\d+/gi;
/**
 * "#31" as a tracker reference: a hash and 1 to 4 digits, not part of a word (`done#7`, a
 * shard), a path or an anchor (`#1-what-every-call-shares`), nor a hex colour (`#0a0`).
 */
const issueHash = /(?<![\w/&#])#\d{1,4}(?![\w-])/g;
/** A run's machine: "this machine", "on my laptop", "a busier machine", "the machine's two cores". */
const machine =
  /\b(?:this|that|my|our|the same|a busier|another|the)\s+(?:[\w-]+-core\s+)?(?:machine|laptop|workstation|box)\b/gi;
/** A markdown link's target: `[text](target)`. */
const link = /\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g;
/** A backticked span. */
const backticked = /`([^`\n]+)`/g;
/** A repository path written bare: one of the folders, then a file with an extension. */
const barePath = new RegExp(
  String.raw`(?<![\w/.@-])((?:${repoFolders.map((folder) => folder.replace('.', String.raw`\.`)).join('|')})/[\w./-]*\.[a-z]{1,5})\b`,
  'g',
);
/** A document named by its file: `SOMETHING.md`, or a DESIGN or STYLE document in words. */
const documentFile = /(?<![\w/.(-])([\w-]+\.md)\b/g;
const documentWords =
  /\b(DESIGN|STYLE|SPEC|CONTRIBUTING|ARCHITECTURE)(?:\.md)?\s+(?:document|doc|file|page)\b/g;

/** A path with a placeholder or a wildcard: only the folder before it must exist. */
const placeholder = /[<{*…$]|\.\.\./;

/** What a path must be to be checked: under one of the folders, or a file at the root. */
function repoPath(candidate: string): string | undefined {
  const path = candidate.replace(/[:#].*$/, '').replace(/[.,;)]+$/, '');
  if (path.includes(' ') || path.startsWith('/') || /^[a-z]+:/.test(path)) return undefined;
  const [first] = path.split('/');
  if (path.includes('/') && repoFolders.includes(first ?? '')) return path;
  return undefined;
}

/** The existing folder a path with a placeholder must at least sit in. */
function fixedPart(path: string): string {
  const at = path.search(placeholder);
  if (at === -1) return path;
  return dirname(`${path.slice(0, at)}x`);
}

function lineAt(text: string, index: number): number {
  return text.slice(0, index).split('\n').length;
}

/**
 * The mentions of `page` (its path from the repository's root, such as `docs/design.md`) that do not
 * state the present: an issue, a machine, a path, an anchor or a document the repository lacks.
 */
export interface Repository {
  /** Whether the repository holds this path, from its root. */
  exists(path: string): boolean;
  /** The names of the documents it holds: `design.md`, `README.md`. */
  documents: ReadonlySet<string>;
  /** The anchors of a page it holds (GitHub's, one per heading), to check a link's `#anchor`. */
  anchors(path: string): ReadonlySet<string>;
}

/** A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces as hyphens. */
export const anchorOf = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');

/** The anchors of a page's headings. */
export function anchorsOf(text: string): Set<string> {
  return new Set([...text.matchAll(/^#{1,6} (.+)$/gm)].map((match) => anchorOf(match[1] ?? '')));
}

export function findings(page: string, text: string, repository: Repository): Finding[] {
  const { exists, documents } = repository;
  const found: Finding[] = [];
  const add = (kind: FindingKind, index: number, mention: string) =>
    found.push({ kind, line: lineAt(text, index), text: mention });

  for (const match of text.matchAll(issueWords)) add('issue', match.index, match[0]);
  for (const match of text.matchAll(issueHash)) add('issue', match.index, match[0]);
  for (const match of text.matchAll(machine)) add('machine', match.index, match[0]);

  const checked = new Set<number>();
  const checkPath = (path: string, index: number, mention: string) => {
    if (checked.has(index)) return;
    checked.add(index);
    if (!exists(normalize(fixedPart(path)))) add('missing path', index, mention);
  };
  for (const match of text.matchAll(link)) {
    const target = match[1] ?? '';
    if (/^[a-z]+:/i.test(target)) continue;
    const [file = '', anchor] = decodeURIComponent(target).split('#');
    const path = file === '' ? page : file.startsWith('/') ? file.slice(1) : join(dirname(page), file);
    if (file !== '') checkPath(path, match.index, target);
    const known = file === '' || exists(normalize(path));
    if (anchor && known && path.endsWith('.md') && !repository.anchors(normalize(path)).has(anchor)) {
      add('missing path', match.index, target);
    }
  }
  for (const match of text.matchAll(backticked)) {
    const path = repoPath(match[1] ?? '');
    if (path !== undefined) checkPath(path, match.index + 1, match[1] ?? '');
  }
  for (const match of text.matchAll(barePath)) {
    const path = repoPath(match[1] ?? '');
    if (path !== undefined) checkPath(path, match.index, match[1] ?? '');
  }

  for (const match of text.matchAll(documentFile)) {
    const name = match[1] ?? '';
    if (!documents.has(name)) add('missing document', match.index, name);
  }
  for (const match of text.matchAll(documentWords)) {
    if (!documents.has(`${match[1]}.md`)) add('missing document', match.index, match[0]);
  }

  return found.sort((a, b) => a.line - b.line);
}
