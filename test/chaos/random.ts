/**
 * A seeded pseudo-random generator for the chaos harness: every random choice of a run comes from
 * it, so a run can be replayed from its seed. Each part of the run (the plan, each deposit's driver,
 * the chaos loop) draws from its own stream, derived from the seed and a label, so the choices of one
 * part do not shift when another draws more or less often (timing still varies between runs; the
 * choices do not).
 */

export interface Random {
  /** A float in [0, 1). */
  next(): number;
  /** An integer in [min, max], both included. */
  int(min: number, max: number): number;
  /** True with probability `p`. */
  chance(p: number): boolean;
  pick<T>(items: readonly T[]): T;
  /** An item chosen with probability proportional to its weight. */
  weighted<T>(items: readonly (readonly [T, number])[]): T;
  shuffle<T>(items: readonly T[]): T[];
}

/** A 32-bit hash of a string (FNV-1a, then a final mix), to derive streams from labels. */
function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let index = 0; index < text.length; index += 1) {
    h ^= text.charCodeAt(index);
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  return h >>> 0;
}

/** mulberry32: small, fast, and good enough to choose faults. */
function mulberry32(state: number): () => number {
  let a = state >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** The stream of `seed` for one part of the run, named by its labels. */
export function randomStream(seed: number, ...labels: (string | number)[]): Random {
  const next = mulberry32(hash(`${seed}/${labels.join('/')}`));
  const random: Random = {
    next,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    chance: (p) => next() < p,
    pick: (items) => {
      const item = items[Math.floor(next() * items.length)];
      if (item === undefined) throw new Error('pick from an empty list');
      return item;
    },
    weighted: (items) => {
      const total = items.reduce((sum, [, weight]) => sum + weight, 0);
      let roll = next() * total;
      for (const [item, weight] of items) {
        roll -= weight;
        if (roll < 0) return item;
      }
      const last = items.at(-1);
      if (!last) throw new Error('weighted pick from an empty list');
      return last[0];
    },
    shuffle: (items) => {
      const copy = [...items];
      for (let index = copy.length - 1; index > 0; index -= 1) {
        const other = Math.floor(next() * (index + 1));
        [copy[index], copy[other]] = [
          copy[other] as (typeof copy)[number],
          copy[index] as (typeof copy)[number],
        ];
      }
      return copy;
    },
  };
  return random;
}

/** The seed of a run: `CHAOS_SEED` as given (a number, or any text hashed to one), else a fresh one. */
export function seedFrom(value: string | undefined): number {
  if (value === undefined || value.trim() === '') return Math.floor(Math.random() * 4_294_967_296);
  const trimmed = value.trim();
  return /^\d+$/.test(trimmed) ? Number(trimmed) >>> 0 : hash(trimmed);
}
