/**
 * FNV-1a over a string's UTF-16 code units, 32 bits: cheap, stable across runs and platforms, and
 * good enough for hashing features into buckets (the local embedder), deriving seeds (the demo
 * corpus) and short ids (tool calls a provider sent without one). Not for anything an attacker
 * chooses the input of to collide.
 */
export function fnv1a(text: string, seed = 0x811c9dc5): number {
  let h = seed >>> 0;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}
