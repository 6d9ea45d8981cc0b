/**
 * The demo corpus: a deterministic, generated warehouse that looks like a real B2B sales team
 * selling a SaaS product (accounts of every type, contacts, deals with MEDDPICC qualification,
 * calls and meetings with multi-speaker transcripts, emails, themes, per-source freshness).
 *
 * Pure: no database, no clock, no randomness beyond the seed. The same (workspace, seed, scale,
 * now) gives the same rows, ids included. Large scales are produced chunk by chunk (60 accounts
 * and everything hanging off them per chunk), so a 100x corpus never sits in memory at once.
 */
import { z } from 'zod';
import { FreshnessAccumulator, ThemeAccumulator } from './corpus/accumulators.js';
import { generateChunk } from './corpus/chunk.js';
import { ACCOUNTS_PER_CHUNK, buildTeam } from './corpus/people.js';
import { createRng, idFactory } from './corpus/prng.js';
import { CHUNK_TABLES, type CorpusChunk, type CorpusTail } from './corpus/rows.js';
import { corpusTimeline, type CorpusTimeline } from './corpus/timeline.js';

export { corpusTimeline, type CorpusTimeline } from './corpus/timeline.js';
export { THEMES } from './corpus/topics.js';
export type * from './corpus/rows.js';

export const DEFAULT_CORPUS_SEED = 20240601;
/** Far beyond what any bench needs; keeps a typo like `--scale 1e9` from running for days. */
export const MAX_CORPUS_SCALE = 1000;

export const corpusOptionsSchema = z.strictObject({
  workspaceId: z.uuid(),
  seed: z
    .number()
    .int()
    .min(0)
    .max(2 ** 31 - 1)
    .default(DEFAULT_CORPUS_SEED),
  /** 1 = about 60 accounts, 150 deals, 600 calls and meetings, 400 emails. */
  scale: z.number().positive().max(MAX_CORPUS_SCALE).default(1),
  /** The corpus ends here and reaches 18 months back. */
  now: z.date(),
});
export type CorpusOptions = z.input<typeof corpusOptionsSchema>;

export interface CorpusStream {
  readonly seed: number;
  readonly scale: number;
  readonly timeline: CorpusTimeline;
  readonly chunkCount: number;
  /** The chunks in order. Iterate once; `tail()` is available as soon as the last one is yielded. */
  chunks(): Generator<CorpusChunk>;
  tail(): CorpusTail;
}

export function streamCorpus(options: CorpusOptions): CorpusStream {
  const { workspaceId, seed, scale, now } = corpusOptionsSchema.parse(options);
  const timeline = corpusTimeline(now);
  const totalAccounts = Math.max(1, Math.round(ACCOUNTS_PER_CHUNK * scale));
  const chunkCount = Math.ceil(totalAccounts / ACCOUNTS_PER_CHUNK);
  const ids = idFactory(workspaceId, seed);
  const team = buildTeam(createRng(seed, 'team'), scale);
  const themes = new ThemeAccumulator();
  const freshness = new FreshnessAccumulator();
  let produced = 0;
  let started = false;

  return {
    seed,
    scale,
    timeline,
    chunkCount,
    *chunks() {
      if (started) throw new Error('a corpus stream can be iterated only once');
      started = true;
      for (let chunkIndex = 0; chunkIndex < chunkCount; chunkIndex++) {
        const accountCount = Math.min(ACCOUNTS_PER_CHUNK, totalAccounts - chunkIndex * ACCOUNTS_PER_CHUNK);
        const chunk = generateChunk({
          workspaceId,
          seed,
          chunkIndex,
          accountCount,
          fraction: accountCount / ACCOUNTS_PER_CHUNK,
          timeline,
          team,
          ids,
          themes,
          freshness,
        });
        // Counted before the yield: once the last chunk is out, the tail is complete (a loader can
        // write it in the same transaction as that chunk).
        produced++;
        yield chunk;
      }
    },
    tail() {
      if (produced < chunkCount) throw new Error('tail() needs every chunk generated first');
      return { themes: themes.rows(workspaceId, ids, now), freshness: freshness.rows(workspaceId, now) };
    },
  };
}

/** The whole corpus in memory: for scale 1 and tests. Larger scales should stream. */
export type Corpus = Omit<CorpusChunk, 'index'> & CorpusTail;

export function generateCorpus(options: CorpusOptions): Corpus {
  const stream = streamCorpus(options);
  const all: Omit<CorpusChunk, 'index'> = {
    accounts: [],
    contacts: [],
    deals: [],
    qualification: [],
    interactions: [],
    participants: [],
    turns: [],
    utterances: [],
    excluded: [],
  };
  for (const chunk of stream.chunks()) {
    // Row by row: spreading a 100k-element array into push() overflows the call stack.
    for (const table of CHUNK_TABLES) {
      const target = all[table] as unknown[];
      for (const row of chunk[table]) target.push(row);
    }
  }
  return { ...all, ...stream.tail() };
}
