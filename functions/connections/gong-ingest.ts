import { and, eq, inArray, sql } from 'drizzle-orm';
import { interactions, transcriptTurns, utterances } from '../../schema/index.js';
import type { Queryable } from '../../platform/db/port.js';
import { newId } from '../../platform/ids.js';
import type { Embedder } from '../../platform/model/port.js';
import { domainOf, judgeCall, type CallFilters, type CallVerdict, type RosterEntry } from './filters.js';
import { linkRosters, writeInteractions, type InteractionDraft, type RosterLinks } from './interaction-ingest.js';
import type { PlannedPage } from './crm-ingest.js';
import type { GongCall, GongMonologue, GongParty } from './providers/gong.js';

/**
 * Gong calls into the warehouse: one interaction per call (upserted on the Gong call id), its
 * participants, and its transcript as turns (Gong's monologues) and utterances (their sentences),
 * the customer side embedded by the configured embedder so the semantic lane finds it. A repeated
 * page changes nothing: the interaction is updated in place, participants are written with the
 * call's first insert, and turns and utterances are keyed on their position. A call whose
 * transcript was not ready at its first sync gets it when a later sync reads the call again
 * (syncs re-read a day back, see sync-sources.ts).
 *
 * Embedding is network work (a hosted embedder), so it happens before the write transaction:
 * `prepareGongPage` reads, filters and embeds; `writeGongPage` writes in the page's commit.
 */
export const SOURCE = 'gong';

interface PreparedParticipant {
  name: string | null;
  email: string | null;
  side: 'internal' | 'external';
  speakerId: string | null;
}

interface PreparedUtterance {
  index: number;
  turnIndex: number;
  side: 'internal' | 'external';
  speaker: string | null;
  text: string;
  embedding: number[] | null;
}

interface PreparedTurn {
  index: number;
  speaker: string | null;
  email: string | null;
  side: 'internal' | 'external';
  startedAt: number;
  endedAt: number;
  text: string;
}

interface PreparedCall extends InteractionDraft {
  /** Null when the interaction already holds its transcript, or Gong has none yet. */
  transcript: { turns: PreparedTurn[]; utterances: PreparedUtterance[] } | null;
}

export interface PreparedGongPage {
  workspaceId: string;
  embedderId: string;
  calls: PreparedCall[];
  links: RosterLinks;
  dropped: Partial<Record<Exclude<CallVerdict, { keep: true }>['reason'], number>>;
  latestEventAt: Date | null;
}

/** Internal or external, from Gong's affiliation; "Unknown" is internal only when the address shares an internal party's domain. */
function rosterOf(parties: readonly GongParty[]): PreparedParticipant[] {
  const internalDomains = new Set(parties.filter((p) => p.affiliation === 'Internal' && p.emailAddress).map((p) => domainOf(p.emailAddress ?? '')));
  return parties.map((p) => {
    const email = p.emailAddress?.trim().toLowerCase() || null;
    const side: 'internal' | 'external' =
      p.affiliation === 'Internal' || (p.affiliation !== 'External' && email !== null && internalDomains.has(domainOf(email))) ? 'internal' : 'external';
    return { name: p.name?.trim() || null, email, side, speakerId: p.speakerId ?? null };
  });
}

/** Sentences split into turns and utterances, positions counted across the whole call. */
function transcriptOf(monologues: readonly GongMonologue[], roster: readonly PreparedParticipant[]): { turns: PreparedTurn[]; utterances: Omit<PreparedUtterance, 'embedding'>[] } {
  const bySpeaker = new Map(roster.filter((p) => p.speakerId).map((p) => [p.speakerId as string, p]));
  const turns: PreparedTurn[] = [];
  const out: Omit<PreparedUtterance, 'embedding'>[] = [];
  for (const m of monologues) {
    const sentences = m.sentences.filter((s) => s.text.trim() !== '');
    if (sentences.length === 0) continue;
    const who = m.speakerId ? bySpeaker.get(m.speakerId) : undefined;
    // A speaker Gong could not place on the roster is not assumed to be the customer.
    const side = who?.side ?? 'internal';
    const turnIndex = turns.length;
    turns.push({
      index: turnIndex,
      speaker: who?.name ?? null,
      email: who?.email ?? null,
      side,
      startedAt: (sentences[0]?.start ?? 0) / 1000,
      endedAt: (sentences.at(-1)?.end ?? 0) / 1000,
      text: sentences.map((s) => s.text.trim()).join(' '),
    });
    for (const s of sentences) out.push({ index: out.length, turnIndex, side, speaker: who?.name ?? null, text: s.text.trim() });
  }
  return { turns, utterances: out };
}

export async function prepareGongPage(
  db: Queryable,
  embedder: Embedder,
  workspaceId: string,
  calls: readonly GongCall[],
  /** Reads the transcripts of the calls kept that have none stored yet (one provider call per page). */
  transcriptsFor: (callIds: readonly string[]) => Promise<ReadonlyMap<string, GongMonologue[]>>,
  filters: CallFilters,
  signal?: AbortSignal,
): Promise<PreparedGongPage> {
  const dropped: PreparedGongPage['dropped'] = {};
  const kept: { call: GongCall; roster: PreparedParticipant[] }[] = [];
  for (const call of calls) {
    const roster = rosterOf(call.parties ?? []);
    const verdict = judgeCall(
      roster.map((p): RosterEntry => ({ email: p.email, side: p.side })),
      filters,
    );
    if (verdict.keep) kept.push({ call, roster });
    else dropped[verdict.reason] = (dropped[verdict.reason] ?? 0) + 1;
  }
  const ids = kept.map((k) => k.call.metaData.id);
  const [withTranscript, links] = await Promise.all([
    ids.length === 0
      ? []
      : db
          .select({ externalId: interactions.externalId })
          .from(interactions)
          .where(
            and(
              eq(interactions.workspaceId, workspaceId),
              eq(interactions.source, SOURCE),
              inArray(interactions.externalId, ids),
              sql`exists (select 1 from ${utterances} u where u.interaction_id = ${interactions.id})`,
            ),
          ),
    linkRosters(
      db,
      workspaceId,
      kept.map((k) => k.roster),
    ),
  ]);
  const hasTranscript = new Set(withTranscript.map((r) => r.externalId));
  const missing = ids.filter((id) => !hasTranscript.has(id));
  const transcripts = missing.length === 0 ? new Map<string, GongMonologue[]>() : await transcriptsFor(missing);

  const pending = kept.map(({ call, roster }) => {
    const monologues = transcripts.get(call.metaData.id);
    return { call, roster, transcript: monologues && !hasTranscript.has(call.metaData.id) ? transcriptOf(monologues, roster) : null };
  });
  const toEmbed = pending.flatMap((p) => p.transcript?.utterances.filter((u) => u.side === 'external').map((u) => u.text) ?? []);
  const vectors = toEmbed.length === 0 ? [] : await embedder.embed(toEmbed, signal ? { signal } : undefined);
  if (vectors.length !== toEmbed.length) throw new Error(`embedder ${embedder.id} returned ${vectors.length} vectors for ${toEmbed.length} texts`);

  let v = 0;
  let latest: Date | null = null;
  const prepared = pending.map(({ call, roster, transcript }): PreparedCall => {
    const occurredAt = new Date(call.metaData.started);
    if (!latest || occurredAt > latest) latest = occurredAt;
    return {
      externalId: call.metaData.id,
      kind: 'call',
      title: call.metaData.title?.trim() || 'Untitled call',
      occurredAt,
      durationSeconds: call.metaData.duration === null || call.metaData.duration === undefined ? null : Math.round(call.metaData.duration),
      summary: call.content?.brief?.trim() || null,
      participants: roster.map(({ name, email, side }) => ({ name, email, side })),
      transcript: transcript
        ? { turns: transcript.turns, utterances: transcript.utterances.map((u) => ({ ...u, embedding: u.side === 'external' ? (vectors[v++] ?? null) : null })) }
        : null,
    };
  });
  return { workspaceId, embedderId: embedder.id, calls: prepared, links, dropped, latestEventAt: latest };
}

/** The page's counts (known before the write) and its write, for the page's commit. */
export function plannedGongPage(page: PreparedGongPage): PlannedPage {
  const skipped = Object.values(page.dropped).reduce((n, k) => n + (k ?? 0), 0);
  return { result: { written: page.calls.length, skipped, latestEventAt: page.latestEventAt }, write: (tx) => writeGongPage(tx, page) };
}

async function writeGongPage(tx: Queryable, page: PreparedGongPage): Promise<void> {
  if (page.calls.length === 0) return;
  const idOf = await writeInteractions(tx, page.workspaceId, SOURCE, page.calls, page.links);
  const turnRows: (typeof transcriptTurns.$inferInsert)[] = [];
  const utteranceRows: (typeof utterances.$inferInsert)[] = [];
  for (const c of page.calls) {
    const interactionId = idOf.get(c.externalId);
    if (!interactionId || !c.transcript) continue;
    const turnIds = c.transcript.turns.map(() => newId());
    c.transcript.turns.forEach((t, i) =>
      turnRows.push({
        id: turnIds[i] as string,
        workspaceId: page.workspaceId,
        interactionId,
        turnIndex: t.index,
        speakerName: t.speaker,
        speakerEmail: t.email,
        side: t.side,
        startedAtSeconds: t.startedAt,
        endedAtSeconds: t.endedAt,
        text: t.text,
        occurredAt: c.occurredAt,
      }),
    );
    for (const u of c.transcript.utterances) {
      utteranceRows.push({
        id: newId(),
        workspaceId: page.workspaceId,
        interactionId,
        turnId: turnIds[u.turnIndex] ?? null,
        utteranceIndex: u.index,
        side: u.side,
        speakerName: u.speaker,
        text: u.text,
        embedding: u.embedding,
        embedder: u.embedding ? page.embedderId : null,
        occurredAt: c.occurredAt,
      });
    }
  }
  // Positions are the key: a transcript already written is left as it is.
  for (const chunk of chunks(turnRows, 1_000)) await tx.insert(transcriptTurns).values(chunk).onConflictDoNothing();
  for (const chunk of chunks(utteranceRows, 1_000)) await tx.insert(utterances).values(chunk).onConflictDoNothing();
}

function* chunks<T>(rows: readonly T[], size: number): Generator<T[]> {
  for (let i = 0; i < rows.length; i += size) yield rows.slice(i, i + size);
}
