/**
 * Load the generated demo corpus into one workspace: chunk by chunk, each chunk in one transaction
 * (COPY on PGlite, multi-row INSERTs elsewhere), with embeddings computed for external-speaker
 * utterances and for themes. Idempotent per workspace: a completed load is recorded in
 * demo_corpus_loads and a second call does nothing.
 */
import { eq, getTableName, sql } from 'drizzle-orm';
import { z } from 'zod';
import { bulkWriterFor, type TableWriter } from '../../../platform/db/bulk-write.js';
import type { Database } from '../../../platform/db/port.js';
import { ensureVectorIndexes, type VectorIndexReport } from '../../../platform/db/vector-indexes.js';
import { LocalHashEmbedder } from '../../../platform/model/local.js';
import type { Embedder } from '../../../platform/model/port.js';
import { demoCorpusLoads } from '../../../schema/demo-corpus-loads.js';
import { accounts, contacts } from '../../../schema/warehouse-accounts.js';
import { dealQualification, deals } from '../../../schema/warehouse-deals.js';
import { interactions, participants, transcriptTurns } from '../../../schema/warehouse-interactions.js';
import { themes, utterances, utteranceVectors } from '../../../schema/warehouse-semantic.js';
import { textHash } from '../../../platform/text-hash.js';
import { excludedInteractions, sourceFreshness } from '../../../schema/warehouse-settings.js';
import {
  DEFAULT_CORPUS_SEED,
  MAX_CORPUS_SCALE,
  streamCorpus,
  type CorpusChunk,
  type ThemeRow,
  type UtteranceRow,
} from './corpus-generator.js';
import { CORPUS_TABLES, hasWarehouseRows, priorLoad, purgeWarehouse } from './corpus-load-state.js';

/**
 * Rows per INSERT statement where COPY is not available (Neon). Postgres caps a statement at
 * 65,535 parameters; utterances have 11 columns, so 5,900 is the hard ceiling.
 */
export const DEFAULT_INSERT_BATCH = 1000;
/** Texts per embedder call: small enough for a hosted embedding API's request limit. */
const EMBED_BATCH = 256;

export const loadCorpusOptionsSchema = z.strictObject({
  scale: z.number().positive().max(MAX_CORPUS_SCALE).default(1),
  seed: z
    .number()
    .int()
    .min(0)
    .max(2 ** 31 - 1)
    .default(DEFAULT_CORPUS_SEED),
  now: z.date().optional(),
  /** Rows per INSERT (when INSERTs are used). */
  batchRows: z.number().int().min(1).max(5000).default(DEFAULT_INSERT_BATCH),
  /** `copy` is used when the driver supports it (PGlite); `insert` forces INSERTs, for the bench. */
  method: z.enum(['auto', 'insert']).default('auto'),
  /** Build HNSW indexes after the load when the vector count reaches the threshold; the bench turns it off to time the build itself. */
  vectorIndexes: z.enum(['auto', 'skip']).default('auto'),
  /**
   * A previous load of this workspace that stopped half-way (marker left in `loading`): refuse
   * (default, an operator decides) or delete the partial rows and load again.
   */
  ifInterrupted: z.enum(['refuse', 'restart']).default('refuse'),
});
export type LoadCorpusOptions = z.input<typeof loadCorpusOptionsSchema> & {
  /** Defaults to the local hash embedder. */
  embedder?: Embedder;
  /** Called after each chunk commits, for progress output on large scales. */
  onChunk?: (progress: { chunk: number; of: number; rows: number }) => void;
};

export interface LoadCorpusResult {
  status: 'loaded' | 'already_loaded';
  counts: Record<string, number>;
  /** Milliseconds spent generating rows, embedding, and writing. */
  timings: { generateMs: number; embedMs: number; writeMs: number; indexMs: number; totalMs: number };
  /** How rows were written: COPY (PGlite) or multi-row INSERT. */
  method?: 'copy' | 'insert';
  /** Vector indexes after the load (built only above the measured threshold). */
  vectorIndexes?: VectorIndexReport[];
}

export class CorpusLoadError extends Error {
  constructor(
    message: string,
    readonly reason: 'interrupted' | 'workspace_has_data',
  ) {
    super(message);
    this.name = 'CorpusLoadError';
  }
}

export async function loadDemoCorpus(
  db: Database,
  workspaceId: string,
  options: LoadCorpusOptions = {},
): Promise<LoadCorpusResult> {
  const {
    scale,
    seed,
    now: givenNow,
    batchRows,
    ifInterrupted,
    method,
    vectorIndexes: indexPolicy,
  } = loadCorpusOptionsSchema.parse({
    scale: options.scale,
    seed: options.seed,
    now: options.now,
    batchRows: options.batchRows,
    ifInterrupted: options.ifInterrupted,
    method: options.method,
    vectorIndexes: options.vectorIndexes,
  });
  const embedder = options.embedder ?? new LocalHashEmbedder();
  const now = givenNow ?? new Date();
  const started = performance.now();
  const timings = { generateMs: 0, embedMs: 0, writeMs: 0, indexMs: 0, totalMs: 0 };

  const prior = await priorLoad(db, workspaceId);
  if (prior?.status === 'complete') return { status: 'already_loaded', counts: prior.counts, timings };
  if (prior?.status === 'loading') {
    if (ifInterrupted === 'refuse') {
      throw new CorpusLoadError(
        `Workspace ${workspaceId} has a demo corpus load that did not finish; load again with ifInterrupted: 'restart' to replace it.`,
        'interrupted',
      );
    }
    await purgeWarehouse(db, workspaceId);
  } else if (await hasWarehouseRows(db, workspaceId)) {
    throw new CorpusLoadError(
      `Workspace ${workspaceId} already holds warehouse data; the demo corpus is only loaded into an empty workspace.`,
      'workspace_has_data',
    );
  }

  const writer = bulkWriterFor(db, { batchRows, prefer: method === 'insert' ? 'insert' : 'copy' });
  const stream = streamCorpus({ workspaceId, seed, scale, now });
  const counts: Record<string, number> = {};
  const count = (table: string, n: number) => (counts[table] = (counts[table] ?? 0) + n);
  // Texts already embedded by an earlier chunk of this load: each distinct text is embedded once.
  const stored = new Set<string>();
  let t = performance.now();
  for (const chunk of stream.chunks()) {
    timings.generateMs += performance.now() - t;
    t = performance.now();
    const vectors = await embedDistinctTexts(embedder, chunk.utterances, stored);
    const tail = chunk.index === stream.chunkCount - 1 ? stream.tail() : null;
    const themeVectors = tail ? await embedder.embed(tail.themes.map(themeText)) : [];
    timings.embedMs += performance.now() - t;
    t = performance.now();

    await writer.transaction(async (w) => {
      if (chunk.index === 0) {
        // Written in the first chunk's transaction: at scale 1 (one chunk) the marker, the rows
        // and the completion are one atomic commit, so a crash leaves nothing half-loaded. A
        // plain insert: a concurrent load of the same workspace fails here (or on the
        // deterministic row ids) instead of doubling the data.
        await w.run((q) =>
          q
            .insert(demoCorpusLoads)
            .values({ workspaceId, seed, scale, status: 'loading', embedder: embedder.id, startedAt: now }),
        );
      }
      await writeChunk(w, chunk, workspaceId, vectors, embedder.id, count);
      if (tail) {
        const themeRows: ThemeRow[] = tail.themes.map((row, i) => ({
          ...row,
          embedding: themeVectors[i] ? compact(themeVectors[i]) : null,
          embedder: themeVectors[i] ? embedder.id : null,
        }));
        await w.insert(themes, themeRows);
        count('themes', themeRows.length);
        await w.insert(sourceFreshness, tail.freshness);
        count('source_freshness', tail.freshness.length);
        await w.run((q) =>
          q
            .update(demoCorpusLoads)
            .set({ status: 'complete', counts, completedAt: now })
            .where(eq(demoCorpusLoads.workspaceId, workspaceId)),
        );
      }
    });
    timings.writeMs += performance.now() - t;
    options.onChunk?.({
      chunk: chunk.index + 1,
      of: stream.chunkCount,
      rows: Object.values(counts).reduce((s, n) => s + n, 0),
    });
    t = performance.now();
  }
  t = performance.now();
  // PGlite has no autovacuum: without fresh statistics the planner assumes near-empty tables
  // (it then ignores an HNSW index, and plans filter-lane joins badly), and without a vacuum the
  // visibility map is empty, so no count can be answered from an index alone.
  await db.execute(
    sql`vacuum (analyze) ${sql.join(
      CORPUS_TABLES.map((table) => sql.identifier(getTableName(table))),
      sql`, `,
    )}`,
  );
  const vectorIndexes = indexPolicy === 'auto' ? await ensureVectorIndexes(db) : [];
  timings.indexMs = performance.now() - t;
  timings.totalMs = performance.now() - started;
  return { status: 'loaded', counts, timings, method: writer.method, vectorIndexes };
}

async function writeChunk(
  w: TableWriter,
  chunk: CorpusChunk,
  workspaceId: string,
  vectors: Map<string, number[]>,
  embedderId: string,
  count: (table: string, n: number) => void,
): Promise<void> {
  // Parents before children: the foreign keys are checked row by row.
  await w.insert(accounts, chunk.accounts);
  await w.insert(contacts, chunk.contacts);
  await w.insert(deals, chunk.deals);
  await w.insert(dealQualification, chunk.qualification);
  await w.insert(interactions, chunk.interactions);
  await w.insert(participants, chunk.participants);
  await w.insert(transcriptTurns, chunk.turns);
  await w.insert(
    utterances,
    chunk.utterances.map((u): UtteranceRow => ({ ...u, embedder: u.side === 'external' ? embedderId : null })),
  );
  await w.insert(
    utteranceVectors,
    [...vectors].map(([hash, embedding]) => ({ workspaceId, embedder: embedderId, textHash: hash, embedding })),
  );
  await w.insert(excludedInteractions, chunk.excluded);
  count('accounts', chunk.accounts.length);
  count('contacts', chunk.contacts.length);
  count('deals', chunk.deals.length);
  count('deal_qualification', chunk.qualification.length);
  count('interactions', chunk.interactions.length);
  count('participants', chunk.participants.length);
  count('transcript_turns', chunk.turns.length);
  count('utterances', chunk.utterances.length);
  count('utterance_vectors', vectors.size);
  count('excluded_interactions', chunk.excluded.length);
}

/**
 * Vectors of the chunk's external texts not embedded before in this load, by text hash. Only the
 * customer's side is embedded (the semantic lane searches external speech only), and each distinct
 * text once: `stored` grows with every text embedded here.
 */
async function embedDistinctTexts(
  embedder: Embedder,
  rows: readonly UtteranceRow[],
  stored: Set<string>,
): Promise<Map<string, number[]>> {
  const fresh = new Map<string, string>();
  for (const u of rows) {
    if (u.side !== 'external') continue;
    const hash = textHash(u.text);
    if (!stored.has(hash) && !fresh.has(hash)) fresh.set(hash, u.text);
  }
  const pending = [...fresh];
  const out = new Map<string, number[]>();
  for (let i = 0; i < pending.length; i += EMBED_BATCH) {
    const batch = pending.slice(i, i + EMBED_BATCH);
    const vectors = await embedder.embed(batch.map(([, text]) => text));
    if (vectors.length !== batch.length)
      throw new Error(`embedder ${embedder.id} returned ${vectors.length} vectors for ${batch.length} texts`);
    batch.forEach(([hash], k) => out.set(hash, compact(vectors[k] as number[])));
  }
  for (const hash of out.keys()) stored.add(hash);
  return out;
}

/**
 * Round components to 1e-7: far below what changes a cosine ranking, and the shorter text makes
 * pgvector's parse about 7% cheaper (measured). Math.round, not toPrecision, which cost more in JS
 * than it saved in the database.
 */
function compact(vector: readonly number[]): number[] {
  return vector.map((v) => Math.round(v * 1e7) / 1e7);
}

/** A theme is embedded from its label, summary and example quotes: what a query would match. */
export const themeText = (row: Pick<ThemeRow, 'label' | 'summary' | 'examples'>): string =>
  [row.label, row.summary, ...(row.examples ?? []).map((e) => e.text)].join('\n');
