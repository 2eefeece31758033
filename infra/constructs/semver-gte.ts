/**
 * What the bundles take instead of `semver` (an esbuild alias in `bundleOptions`, `bundle-options.ts`).
 * Only the X-Ray SDK that Powertools Tracer brings imports it, for one call each: `cls-hooked` asks
 * whether Node is at least 8 (to pick `async_hooks`), and the SDK's patcher of the AWS SDK v2 (which
 * no function uses) whether that SDK is recent enough. Both are CommonJS, so esbuild cannot leave out
 * the rest of `semver`: 28 KiB of each bundle, for a comparison of two versions.
 * `test/infra/bundle-aliases.test.ts` holds it to `semver.gte` itself.
 */

const VERSION = /^\s*[v=]*\s*(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?\s*$/;

function parse(version: string): { release: number[]; prerelease: string[] } {
  const match = VERSION.exec(version);
  if (!match) throw new TypeError(`Invalid Version: ${version}`);
  return {
    release: [Number(match[1]), Number(match[2]), Number(match[3])],
    prerelease: match[4] ? match[4].split('.') : [],
  };
}

/** Numeric identifiers compare as numbers and before alphanumeric ones, as semver orders them. */
function compareIdentifiers(a: string, b: string): number {
  const numeric = /^\d+$/;
  if (numeric.test(a) && numeric.test(b)) return Number(a) - Number(b);
  if (numeric.test(a)) return -1;
  if (numeric.test(b)) return 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

function compare(a: string, b: string): number {
  const left = parse(a);
  const right = parse(b);
  for (let index = 0; index < 3; index += 1) {
    const difference = (left.release[index] ?? 0) - (right.release[index] ?? 0);
    if (difference !== 0) return difference;
  }
  // A pre-release comes before its release; between two, identifier by identifier.
  if (left.prerelease.length === 0 || right.prerelease.length === 0)
    return right.prerelease.length - left.prerelease.length;
  for (let index = 0; index < Math.max(left.prerelease.length, right.prerelease.length); index += 1) {
    const l = left.prerelease[index];
    const r = right.prerelease[index];
    if (l === undefined) return -1;
    if (r === undefined) return 1;
    const difference = compareIdentifiers(l, r);
    if (difference !== 0) return difference;
  }
  return 0;
}

/** `semver.gte(a, b)`: whether version `a` is `b` or later (an invalid version throws, as there). */
export function gte(a: string, b: string): boolean {
  return compare(a, b) >= 0;
}
