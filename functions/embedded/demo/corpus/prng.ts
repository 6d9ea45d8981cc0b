/**
 * Seeded randomness for the demo corpus. Every stream is derived from (seed, label), so a chunk of
 * the corpus can be generated without generating the chunks before it, and adding a new stream
 * never shifts the values of the existing ones.
 */
import { fnv1a } from '../../../../platform/fnv1a.js';

export interface Rng {
  /** Uniform in [0, 1). */
  next(): number;
  /** Integer in [min, max], both inclusive. */
  int(min: number, max: number): number;
  chance(probability: number): boolean;
  pick<T>(items: readonly T[]): T;
  /** Pick by weight; weights need not sum to 1. */
  weighted<T>(items: readonly (readonly [T, number])[]): T;
  /** `count` distinct items (all of them when count >= length), in random order. */
  sample<T>(items: readonly T[], count: number): T[];
  shuffle<T>(items: readonly T[]): T[];
  /** Roughly normal around `mean` (sum of uniforms), clamped to [min, max]. */
  around(mean: number, spread: number, min: number, max: number): number;
  /** A child stream, independent of how much of this one is consumed later. */
  fork(label: string): Rng;
}

/** sfc32: small, fast, passes PractRand far beyond what a demo corpus draws. */
export function createRng(seed: number, label = ''): Rng {
  let a = fnv1a(`a:${label}`, seed);
  let b = fnv1a(`b:${label}`, seed ^ 0x9e3779b9);
  let c = fnv1a(`c:${label}`, seed ^ 0x85ebca6b);
  let d = fnv1a(`d:${label}`, seed ^ 0xc2b2ae35);
  const next = (): number => {
    a >>>= 0;
    b >>>= 0;
    c >>>= 0;
    d >>>= 0;
    const t = (a + b) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    d = (d + 1) | 0;
    const r = (t + d) | 0;
    c = (c + r) | 0;
    return (r >>> 0) / 4294967296;
  };
  // Discard the first outputs: sfc32 seeded from similar words starts correlated.
  for (let i = 0; i < 12; i++) next();

  const rng: Rng = {
    next,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    chance: (p) => next() < p,
    pick: <T>(items: readonly T[]): T => {
      if (items.length === 0) throw new Error('pick from an empty list');
      return items[Math.floor(next() * items.length)] as T;
    },
    weighted: <T>(items: readonly (readonly [T, number])[]): T => {
      const total = items.reduce((s, [, w]) => s + w, 0);
      let r = next() * total;
      for (const [item, w] of items) {
        r -= w;
        if (r < 0) return item;
      }
      const last = items[items.length - 1];
      if (!last) throw new Error('weighted pick from an empty list');
      return last[0];
    },
    shuffle: <T>(items: readonly T[]): T[] => {
      const out = [...items];
      for (let i = out.length - 1; i > 0; i--) {
        const j = Math.floor(next() * (i + 1));
        [out[i], out[j]] = [out[j] as T, out[i] as T];
      }
      return out;
    },
    sample: <T>(items: readonly T[], count: number): T[] => rng.shuffle(items).slice(0, Math.max(0, count)),
    around: (mean, spread, min, max) => {
      const u = (next() + next() + next()) / 3 - 0.5;
      return Math.min(max, Math.max(min, mean + u * 2 * spread));
    },
    fork: (childLabel) => createRng(seed, `${label}/${childLabel}`),
  };
  return rng;
}

const hex = (value: number, width: number) => value.toString(16).padStart(width, '0').slice(-width);

/** Kinds of generated records; the code goes into the id so two kinds never share an id. */
export const ID_KINDS = {
  account: 0x001,
  contact: 0x002,
  deal: 0x003,
  qualification: 0x004,
  interaction: 0x005,
  participant: 0x006,
  turn: 0x007,
  utterance: 0x008,
  theme: 0x009,
} as const;
export type IdKind = keyof typeof ID_KINDS;

/**
 * Deterministic UUIDs (version 8, "custom") for one (workspace, seed): 62 bits of a hash of both,
 * 12 bits of kind, 48 bits of counter. Two workspaces loaded from the same seed get disjoint ids,
 * and one workspace gets the same ids on every run.
 */
export function idFactory(workspaceId: string, seed: number): (kind: IdKind, n: number) => string {
  const h1 = fnv1a(`${workspaceId}:${seed}`);
  const h2 = fnv1a(`${seed}:${workspaceId}`, 0x01000193);
  const prefix = `${hex(h1, 8)}-${hex(h2 >>> 16, 4)}`;
  const variant = hex(0x8000 | (h2 & 0x3fff), 4);
  return (kind, n) => {
    if (!Number.isSafeInteger(n) || n < 0 || n >= 2 ** 48) throw new Error(`id counter out of range: ${n}`);
    return `${prefix}-8${hex(ID_KINDS[kind], 3)}-${variant}-${hex(n, 12)}`;
  };
}
