import type { Queryable } from '../../../../platform/db/port.js';
import type { Embedder } from '../../../../platform/model/port.js';
import type { PlannedPage } from '../../crm-ingest.js';
import { domainOf, judgeCall, type CallFilters, type CallVerdict } from '../../filters.js';
import {
  linkRosters,
  writeInteractions,
  type InteractionDraft,
  type RosterLinks,
  type RosterMember,
} from '../../interaction-ingest.js';
import type { GongCall, GongMonologue, GongParty } from './client.js';
import {
  embedTranscripts,
  withTranscripts,
  writeTranscripts,
  type EmbeddedTranscript,
  type SpokenTurn,
} from '../../transcript-ingest.js';

/**
 * Gong calls into the warehouse: one interaction per call (upserted on the Gong call id), its
 * participants, and its transcript (Gong's monologues as turns, their sentences as utterances).
 * A call whose transcript was not ready at its first sync gets it when a later sync reads the call
 * again (syncs re-read a day back, see source.ts). `prepareGongPage` reads, filters and
 * embeds before the page's commit; `plannedGongPage` writes in it.
 */
export const SOURCE = 'gong';

interface GongRosterMember extends RosterMember {
  speakerId: string | null;
}

interface PreparedCall extends InteractionDraft {
  /** Null when the interaction already holds its transcript, or Gong has none yet. */
  transcript: EmbeddedTranscript | null;
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
function rosterOf(parties: readonly GongParty[]): GongRosterMember[] {
  const internalDomains = new Set(
    parties.filter((p) => p.affiliation === 'Internal' && p.emailAddress).map((p) => domainOf(p.emailAddress ?? '')),
  );
  return parties.map((p) => {
    const email = p.emailAddress?.trim().toLowerCase() || null;
    const side: 'internal' | 'external' =
      p.affiliation === 'Internal' ||
      (p.affiliation !== 'External' && email !== null && internalDomains.has(domainOf(email)))
        ? 'internal'
        : 'external';
    return { name: p.name?.trim() || null, email, side, speakerId: p.speakerId ?? null };
  });
}

/** Monologues as turns (times in seconds; Gong's are milliseconds). */
function spokenTurns(monologues: readonly GongMonologue[], roster: readonly GongRosterMember[]): SpokenTurn[] {
  const bySpeaker = new Map(roster.filter((p) => p.speakerId).map((p) => [p.speakerId as string, p]));
  return monologues.map((m) => {
    const who = m.speakerId ? bySpeaker.get(m.speakerId) : undefined;
    return {
      speaker: who?.name ?? null,
      email: who?.email ?? null,
      // A speaker Gong could not place on the roster is not assumed to be the customer.
      side: who?.side ?? 'internal',
      startedAt: m.sentences[0] ? m.sentences[0].start / 1000 : null,
      endedAt: m.sentences.at(-1) ? (m.sentences.at(-1) as { end: number }).end / 1000 : null,
      sentences: m.sentences.map((s) => s.text),
    };
  });
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
  const kept: { call: GongCall; roster: GongRosterMember[] }[] = [];
  for (const call of calls) {
    const roster = rosterOf(call.parties ?? []);
    const verdict = judgeCall(roster, filters);
    if (verdict.keep) kept.push({ call, roster });
    else dropped[verdict.reason] = (dropped[verdict.reason] ?? 0) + 1;
  }
  const ids = kept.map((k) => k.call.metaData.id);
  const [stored, links] = await Promise.all([
    withTranscripts(db, workspaceId, SOURCE, ids),
    linkRosters(
      db,
      workspaceId,
      kept.map((k) => k.roster),
    ),
  ]);
  const missing = ids.filter((id) => !stored.has(id));
  const transcripts = missing.length === 0 ? new Map<string, GongMonologue[]>() : await transcriptsFor(missing);
  const toEmbed = kept.filter((k) => transcripts.has(k.call.metaData.id));
  const embedded = await embedTranscripts(
    embedder,
    { db, workspaceId },
    toEmbed.map((k) => spokenTurns(transcripts.get(k.call.metaData.id) ?? [], k.roster)),
    signal,
  );
  const transcriptOf = new Map(toEmbed.map((k, i) => [k.call.metaData.id, embedded[i] ?? null]));

  let latest: Date | null = null;
  const prepared = kept.map(({ call, roster }): PreparedCall => {
    const occurredAt = new Date(call.metaData.started);
    if (!latest || occurredAt > latest) latest = occurredAt;
    return {
      externalId: call.metaData.id,
      kind: 'call',
      title: call.metaData.title?.trim() || 'Untitled call',
      occurredAt,
      durationSeconds:
        call.metaData.duration === null || call.metaData.duration === undefined
          ? null
          : Math.round(call.metaData.duration),
      summary: call.content?.brief?.trim() || null,
      participants: roster.map(({ name, email, side }) => ({ name, email, side })),
      transcript: transcriptOf.get(call.metaData.id) ?? null,
    };
  });
  return { workspaceId, embedderId: embedder.id, calls: prepared, links, dropped, latestEventAt: latest };
}

/** The page's counts (known before the write) and its write, for the page's commit. */
export function plannedGongPage(page: PreparedGongPage): PlannedPage {
  const skipped = Object.values(page.dropped).reduce((n, k) => n + (k ?? 0), 0);
  return {
    result: { written: page.calls.length, skipped, latestEventAt: page.latestEventAt },
    write: async (tx) => {
      const idOf = await writeInteractions(tx, page.workspaceId, SOURCE, page.calls, page.links);
      await writeTranscripts(
        tx,
        page.workspaceId,
        page.embedderId,
        page.calls.flatMap((c) =>
          c.transcript && idOf.get(c.externalId)
            ? [{ interactionId: idOf.get(c.externalId) as string, occurredAt: c.occurredAt, transcript: c.transcript }]
            : [],
        ),
      );
    },
  };
}
