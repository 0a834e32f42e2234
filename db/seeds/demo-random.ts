// Seeded randomness for the demo seed. mulberry32: 32-bit state, good enough for demo data and fast.

export type Rng = () => number; // uniform in [0, 1)

function mulberry32(state: number): Rng {
  let a = state >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Mixes two 32-bit values into one (murmur3 finaliser), to derive independent seeds. */
function mix(a: number, b: number): number {
  let h = Math.imul(a ^ Math.imul(b, 0x9e3779b1), 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** Independent random streams, so that e.g. adding a field to checks does not shift assignments. */
export const STREAM = { world: 1, rider: 2, assignments: 3, checks: 4, items: 5, answers: 6 } as const;

export function rngFor(seed: number, stream: number, id: number): Rng {
  return mulberry32(mix(mix(seed, stream), id));
}

export const int = (rng: Rng, lo: number, hi: number): number => lo + Math.floor(rng() * (hi - lo + 1));
export const chance = (rng: Rng, p: number): boolean => rng() < p;
export const pick = <T>(rng: Rng, xs: readonly T[]): T => xs[Math.floor(rng() * xs.length)];

export function weighted<T>(rng: Rng, options: ReadonlyArray<readonly [T, number]>): T {
  let total = 0;
  for (const [, w] of options) total += w;
  let r = rng() * total;
  for (const [value, w] of options) {
    r -= w;
    if (r < 0) return value;
  }
  return options[options.length - 1][0];
}

/** k distinct items of xs in their original order (selection sampling). */
export function sampleOrdered<T>(rng: Rng, xs: readonly T[], k: number): T[] {
  const out: T[] = [];
  for (let i = 0; i < xs.length && out.length < k; i++) {
    if (rng() * (xs.length - i) < k - out.length) out.push(xs[i]);
  }
  return out;
}
