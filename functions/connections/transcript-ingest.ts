import { and, eq, inArray, sql } from 'drizzle-orm';
import { interactions, transcriptTurns, utterances, utteranceVectors } from '../../schema/index.js';
import type { Queryable } from '../../platform/db/port.js';
import { newId } from '../../platform/ids.js';
import { textHash } from '../../platform/text-hash.js';
import { upsertRows } from '../../platform/db/upsert-rows.js';
import type { Embedder } from '../../platform/model/port.js';

/**
 * Transcripts into the warehouse, whichever source they come from (Gong's monologues, a pushed
 * call's turns): each turn a `transcript_turns` row, each sentence an `utterances` row, positions
 * counted across the whole call, and the customer side embedded by the configured embedder so
 * the semantic lane finds it: each distinct text once per workspace (`utterance_vectors`), so a
 * sentence the store already holds is not sent to the embedder again. Embedding is network work on
 * a hosted embedder, so it is done before the write transaction (`embedTranscripts`), and the
 * write (`writeTranscripts`) keys turns and utterances on their position: a transcript already
 * stored is left as it is.
 */
export interface SpokenTurn {
  speaker: string | null;
  email: string | null;
  side: 'internal' | 'external';
  /** Seconds from the start of the call, when the source says. */
  startedAt: number | null;
  endedAt: number | null;
  sentences: string[];
}

export interface TurnRow {
  index: number;
  speaker: string | null;
  email: string | null;
  side: 'internal' | 'external';
  startedAt: number | null;
  endedAt: number | null;
  text: string;
}

export interface UtteranceRow {
  index: number;
  turnIndex: number;
  side: 'internal' | 'external';
  speaker: string | null;
  text: string;
}

/** A text's vector for the store, keyed as `utterances.text_hash` computes it. */
interface TextVector {
  textHash: string;
  embedding: number[];
}

export interface EmbeddedTranscript {
  turns: TurnRow[];
  utterances: UtteranceRow[];
  /** Vectors of this transcript's external texts the store lacked (each new text in one transcript of the batch). */
  vectors: TextVector[];
}

/** Where the store is read, to embed only texts it does not hold yet. */
export interface VectorStoreScope {
  db: Queryable;
  workspaceId: string;
}

/** Sentences of a written turn (a pushed call's turn, a post): split after ., ! or ? followed by a space. */
export const sentencesOf = (text: string): string[] => text.split(/(?<=[.!?])\s+/).filter((s) => s.trim() !== '');

/** A transcript as it is stored: turns without words dropped, positions counted across the whole transcript. */
export function shapeTranscript(spoken: readonly SpokenTurn[]): { turns: TurnRow[]; said: UtteranceRow[] } {
  const turns: TurnRow[] = [];
  const said: UtteranceRow[] = [];
  for (const t of spoken) {
    const sentences = t.sentences.map((s) => s.trim()).filter((s) => s !== '');
    if (sentences.length === 0) continue;
    const turnIndex = turns.length;
    turns.push({
      index: turnIndex,
      speaker: t.speaker,
      email: t.email,
      side: t.side,
      startedAt: t.startedAt,
      endedAt: t.endedAt,
      text: sentences.join(' '),
    });
    for (const text of sentences) said.push({ index: said.length, turnIndex, side: t.side, speaker: t.speaker, text });
  }
  return { turns, said };
}

/**
 * Split turns into rows and embed the customer's sentences the store lacks, for many calls in one
 * embedder call: a text said in several calls (or already stored) is embedded once.
 */
export async function embedTranscripts(
  embedder: Embedder,
  store: VectorStoreScope,
  transcripts: readonly (readonly SpokenTurn[])[],
  signal?: AbortSignal,
): Promise<EmbeddedTranscript[]> {
  const shaped = transcripts.map(shapeTranscript);
  // Each new text once, with the first transcript that says it.
  const firstSaidIn = new Map<string, { text: string; transcript: number }>();
  shaped.forEach((s, transcript) => {
    for (const u of s.said) {
      if (u.side !== 'external') continue;
      const hash = textHash(u.text);
      if (!firstSaidIn.has(hash)) firstSaidIn.set(hash, { text: u.text, transcript });
    }
  });
  // Read before the write's transaction: a vector pruned in between (pruneOrphanVectors) would leave
  // these utterances without one. Nothing prunes while transcripts are ingested today (only calendar
  // cancellations delete interactions, and meetings carry no transcript); a path that deletes
  // transcripts must re-check inside the write or lock the vectors it relies on.
  const known = await storedTexts(store, embedder.id, [...firstSaidIn.keys()]);
  const pending = [...firstSaidIn].filter(([hash]) => !known.has(hash));
  const vectors =
    pending.length === 0
      ? []
      : await embedder.embed(
          pending.map(([, p]) => p.text),
          signal ? { signal } : undefined,
        );
  if (vectors.length !== pending.length)
    throw new Error(`embedder ${embedder.id} returned ${vectors.length} vectors for ${pending.length} texts`);
  const vectorsOf = shaped.map((): TextVector[] => []);
  pending.forEach(([hash, p], i) =>
    vectorsOf[p.transcript]?.push({ textHash: hash, embedding: vectors[i] as number[] }),
  );
  return shaped.map((s, i) => ({ turns: s.turns, utterances: s.said, vectors: vectorsOf[i] ?? [] }));
}

/** Which of these text hashes the store already holds for this embedder. */
async function storedTexts(
  store: VectorStoreScope,
  embedderId: string,
  hashes: readonly string[],
): Promise<Set<string>> {
  if (hashes.length === 0) return new Set();
  // One JSON parameter rather than one parameter per hash: a page can hold thousands of texts.
  const rows = await store.db
    .select({ textHash: utteranceVectors.textHash })
    .from(utteranceVectors)
    .where(
      and(
        eq(utteranceVectors.workspaceId, store.workspaceId),
        eq(utteranceVectors.embedder, embedderId),
        sql`${utteranceVectors.textHash} in (select jsonb_array_elements_text(${JSON.stringify(hashes)}::jsonb))`,
      ),
    );
  return new Set(rows.map((r) => r.textHash));
}

/** Which of these interactions of a source already hold a transcript (they are not embedded again). */
export async function withTranscripts(
  db: Queryable,
  workspaceId: string,
  source: string,
  externalIds: readonly string[],
): Promise<Set<string>> {
  if (externalIds.length === 0) return new Set();
  const rows = await db
    .select({ externalId: interactions.externalId })
    .from(interactions)
    .where(
      and(
        eq(interactions.workspaceId, workspaceId),
        eq(interactions.source, source),
        inArray(interactions.externalId, [...externalIds]),
        sql`exists (select 1 from ${utterances} u where u.interaction_id = ${interactions.id})`,
      ),
    );
  return new Set(rows.map((r) => r.externalId as string));
}

export async function writeTranscripts(
  tx: Queryable,
  workspaceId: string,
  embedderId: string,
  items: readonly { interactionId: string; occurredAt: Date; transcript: EmbeddedTranscript }[],
): Promise<void> {
  const turnRows: (typeof transcriptTurns.$inferInsert)[] = [];
  const utteranceRows: (typeof utterances.$inferInsert)[] = [];
  const vectorRows: (typeof utteranceVectors.$inferInsert)[] = [];
  for (const { interactionId, occurredAt, transcript } of items) {
    const turnIds = transcript.turns.map(() => newId());
    transcript.turns.forEach((t, i) =>
      turnRows.push({
        id: turnIds[i] as string,
        workspaceId,
        interactionId,
        turnIndex: t.index,
        speakerName: t.speaker,
        speakerEmail: t.email,
        side: t.side,
        startedAtSeconds: t.startedAt,
        endedAtSeconds: t.endedAt,
        text: t.text,
        occurredAt,
      }),
    );
    for (const u of transcript.utterances) {
      utteranceRows.push({
        id: newId(),
        workspaceId,
        interactionId,
        turnId: turnIds[u.turnIndex] ?? null,
        utteranceIndex: u.index,
        side: u.side,
        speakerName: u.speaker,
        text: u.text,
        embedder: u.side === 'external' ? embedderId : null,
        occurredAt,
      });
    }
    for (const v of transcript.vectors)
      vectorRows.push({ workspaceId, embedder: embedderId, textHash: v.textHash, embedding: v.embedding });
  }
  // A transcript already stored keeps its rows: a repeated page inserts nothing.
  for (const chunk of chunks(turnRows, 1_000)) await upsertRows(tx, transcriptTurns, chunk);
  for (const chunk of chunks(utteranceRows, 1_000)) await upsertRows(tx, utterances, chunk);
  // A text another page stored meanwhile keeps its first vector (the same embedder's, so equal).
  for (const chunk of chunks(vectorRows, 500)) await upsertRows(tx, utteranceVectors, chunk);
}

function* chunks<T>(rows: readonly T[], size: number): Generator<T[]> {
  for (let i = 0; i < rows.length; i += size) yield rows.slice(i, i + size);
}
