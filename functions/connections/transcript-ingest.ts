import { and, eq, inArray, sql } from 'drizzle-orm';
import { interactions, transcriptTurns, utterances } from '../../schema/index.js';
import type { Queryable } from '../../platform/db/port.js';
import { newId } from '../../platform/ids.js';
import { upsertRows } from '../../platform/db/upsert-rows.js';
import type { Embedder } from '../../platform/model/port.js';

/**
 * Transcripts into the warehouse, whichever source they come from (Gong's monologues, a pushed
 * call's turns): each turn a `transcript_turns` row, each sentence an `utterances` row, positions
 * counted across the whole call, and the customer side embedded by the configured embedder so
 * the semantic lane finds it. Embedding is network work on a hosted embedder, so it is done
 * before the write transaction (`embedTranscripts`), and the write (`writeTranscripts`) keys turns
 * and utterances on their position: a transcript already stored is left as it is.
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

interface TurnRow {
  index: number;
  speaker: string | null;
  email: string | null;
  side: 'internal' | 'external';
  startedAt: number | null;
  endedAt: number | null;
  text: string;
}

interface UtteranceRow {
  index: number;
  turnIndex: number;
  side: 'internal' | 'external';
  speaker: string | null;
  text: string;
  embedding: number[] | null;
}

export interface EmbeddedTranscript {
  turns: TurnRow[];
  utterances: UtteranceRow[];
}

/** Split turns into rows and embed the customer's sentences, for many calls in one embedder call. */
export async function embedTranscripts(embedder: Embedder, transcripts: readonly (readonly SpokenTurn[])[], signal?: AbortSignal): Promise<EmbeddedTranscript[]> {
  const shaped = transcripts.map((spoken) => {
    const turns: TurnRow[] = [];
    const said: Omit<UtteranceRow, 'embedding'>[] = [];
    for (const t of spoken) {
      const sentences = t.sentences.map((s) => s.trim()).filter((s) => s !== '');
      if (sentences.length === 0) continue;
      const turnIndex = turns.length;
      turns.push({ index: turnIndex, speaker: t.speaker, email: t.email, side: t.side, startedAt: t.startedAt, endedAt: t.endedAt, text: sentences.join(' ') });
      for (const text of sentences) said.push({ index: said.length, turnIndex, side: t.side, speaker: t.speaker, text });
    }
    return { turns, said };
  });
  const texts = shaped.flatMap((s) => s.said.filter((u) => u.side === 'external').map((u) => u.text));
  const vectors = texts.length === 0 ? [] : await embedder.embed(texts, signal ? { signal } : undefined);
  if (vectors.length !== texts.length) throw new Error(`embedder ${embedder.id} returned ${vectors.length} vectors for ${texts.length} texts`);
  let v = 0;
  return shaped.map((s) => ({ turns: s.turns, utterances: s.said.map((u) => ({ ...u, embedding: u.side === 'external' ? (vectors[v++] ?? null) : null })) }));
}

/** Which of these interactions of a source already hold a transcript (they are not embedded again). */
export async function withTranscripts(db: Queryable, workspaceId: string, source: string, externalIds: readonly string[]): Promise<Set<string>> {
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

export async function writeTranscripts(tx: Queryable, workspaceId: string, embedderId: string, items: readonly { interactionId: string; occurredAt: Date; transcript: EmbeddedTranscript }[]): Promise<void> {
  const turnRows: (typeof transcriptTurns.$inferInsert)[] = [];
  const utteranceRows: (typeof utterances.$inferInsert)[] = [];
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
        embedding: u.embedding,
        embedder: u.embedding ? embedderId : null,
        occurredAt,
      });
    }
  }
  // A transcript already stored keeps its rows: a repeated page inserts nothing.
  for (const chunk of chunks(turnRows, 1_000)) await upsertRows(tx, transcriptTurns, chunk);
  for (const chunk of chunks(utteranceRows, 1_000)) await upsertRows(tx, utterances, chunk);
}

function* chunks<T>(rows: readonly T[], size: number): Generator<T[]> {
  for (let i = 0; i < rows.length; i += size) yield rows.slice(i, i + size);
}
