/**
 * Re-embed, at start, the vectors an earlier version of the local embedder stored. A new version
 * (local:hash-ngram-v2 -> v3) changes every vector, and the semantic lane only compares a query with
 * vectors of its own embedder: without this, a DATA_DIR started before the upgrade would answer
 * every semantic search from the theme index, degraded. Local vectors only: the local embedder is
 * offline and takes about a second for the 1x store, whereas re-embedding with a hosted provider
 * at start would be a silent bill (the lane says the store needs re-embedding instead).
 *
 * Per workspace and stale embedder, in one transaction: embed each distinct external text once,
 * store the vectors under the new id, move the utterances to it (the store counts follow by their
 * triggers), drop the old vectors; then the themes' vectors.
 */
import { and, eq, sql } from 'drizzle-orm';
import { type Database, queryRows } from '../../platform/db/port.js';
import type { Embedder } from '../../platform/model/port.js';
import { themes, utterances, utteranceVectors } from '../../schema/index.js';
import { themeText } from './demo/load-corpus.js';

const LOCAL_PREFIX = 'local:';
/** Vectors per INSERT: 384 floats each, well under the statement's parameter limit. */
const INSERT_BATCH = 500;

export interface ReembedReport {
  workspaceId: string;
  from: string;
  texts: number;
  themes: number;
}

export async function reembedStaleLocalVectors(db: Database, embedder: Embedder): Promise<ReembedReport[]> {
  if (!embedder.id.startsWith(LOCAL_PREFIX)) return [];
  const stale = await queryRows<{ workspace_id: string; embedder: string }>(
    db,
    sql`select distinct workspace_id, embedder from utterance_vectors
        where embedder like ${`${LOCAL_PREFIX}%`} and embedder <> ${embedder.id}
        union
        select distinct workspace_id, embedder from themes
        where embedder like ${`${LOCAL_PREFIX}%`} and embedder <> ${embedder.id}`,
  );
  const reports: ReembedReport[] = [];
  for (const { workspace_id: workspaceId, embedder: from } of stale) {
    reports.push(await reembedWorkspace(db, embedder, workspaceId, from));
  }
  return reports;
}

async function reembedWorkspace(
  db: Database,
  embedder: Embedder,
  workspaceId: string,
  from: string,
): Promise<ReembedReport> {
  return db.transaction(async (tx) => {
    const texts = await queryRows<{ text_hash: string; text: string }>(
      tx,
      sql`select distinct on (text_hash) text_hash, text from utterances
          where workspace_id = ${workspaceId} and side = 'external' and embedder = ${from}
          order by text_hash`,
    );
    for (let i = 0; i < texts.length; i += INSERT_BATCH) {
      const batch = texts.slice(i, i + INSERT_BATCH);
      const vectors = await embedder.embed(batch.map((t) => t.text));
      await tx
        .insert(utteranceVectors)
        .values(
          batch.map((t, k) => ({
            workspaceId,
            embedder: embedder.id,
            textHash: t.text_hash,
            embedding: vectors[k] ?? [],
          })),
        )
        .onConflictDoNothing();
    }
    await tx
      .update(utterances)
      .set({ embedder: embedder.id })
      .where(and(eq(utterances.workspaceId, workspaceId), eq(utterances.embedder, from)));
    await tx
      .delete(utteranceVectors)
      .where(and(eq(utteranceVectors.workspaceId, workspaceId), eq(utteranceVectors.embedder, from)));

    const staleThemes = await tx
      .select({ id: themes.id, label: themes.label, summary: themes.summary, examples: themes.examples })
      .from(themes)
      .where(and(eq(themes.workspaceId, workspaceId), eq(themes.embedder, from)));
    const themeVectors = staleThemes.length > 0 ? await embedder.embed(staleThemes.map(themeText)) : [];
    for (const [k, theme] of staleThemes.entries()) {
      await tx
        .update(themes)
        .set({ embedding: themeVectors[k] ?? null, embedder: themeVectors[k] ? embedder.id : null })
        .where(and(eq(themes.workspaceId, workspaceId), eq(themes.id, theme.id)));
    }
    return { workspaceId, from, texts: texts.length, themes: staleThemes.length };
  });
}
