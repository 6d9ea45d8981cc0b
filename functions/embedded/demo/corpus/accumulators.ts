import type { ThemeExample } from '../../../../schema/warehouse-semantic.js';
import type { WarehouseSurface } from '../../../../schema/warehouse-settings.js';
import type { IdKind } from './prng.js';
import type { FreshnessRow, ThemeRow } from './rows.js';
import { THEMES } from './topics.js';

interface ThemeStats {
  members: number;
  interactions: number;
  lastInteraction: string | null;
  first: Date | null;
  last: Date | null;
  /** The newest distinct quotes, newest first. */
  examples: (ThemeExample & { at: Date })[];
}

const EXAMPLES_PER_THEME = 3;

/**
 * Builds the theme index while utterances stream past: member and interaction counts, first and
 * last seen, and the newest quotes as examples. Nothing is kept per utterance, so a 100x corpus
 * costs the same memory as a 1x one.
 */
export class ThemeAccumulator {
  private readonly stats = new Map<string, ThemeStats>();

  add(themeKey: string, utterance: { id: string; interactionId: string; text: string; occurredAt: Date }): void {
    let s = this.stats.get(themeKey);
    if (!s) {
      s = { members: 0, interactions: 0, lastInteraction: null, first: null, last: null, examples: [] };
      this.stats.set(themeKey, s);
    }
    s.members++;
    // Utterances of one interaction arrive together, so a change of id is a new interaction.
    if (s.lastInteraction !== utterance.interactionId) {
      s.interactions++;
      s.lastInteraction = utterance.interactionId;
    }
    if (!s.first || utterance.occurredAt < s.first) s.first = utterance.occurredAt;
    if (!s.last || utterance.occurredAt > s.last) s.last = utterance.occurredAt;
    if (s.examples.some((e) => e.text === utterance.text)) return;
    const oldest = s.examples[s.examples.length - 1];
    if (s.examples.length < EXAMPLES_PER_THEME || (oldest && utterance.occurredAt > oldest.at)) {
      s.examples.push({
        text: utterance.text,
        utteranceId: utterance.id,
        interactionId: utterance.interactionId,
        at: utterance.occurredAt,
      });
      s.examples.sort((a, b) => b.at.getTime() - a.at.getTime() || a.utteranceId.localeCompare(b.utteranceId));
      s.examples.length = Math.min(s.examples.length, EXAMPLES_PER_THEME);
    }
  }

  rows(workspaceId: string, id: (kind: IdKind, n: number) => string, now: Date): ThemeRow[] {
    const rows: ThemeRow[] = [];
    THEMES.forEach((theme, n) => {
      const s = this.stats.get(theme.key);
      if (!s || s.members === 0) return;
      rows.push({
        id: id('theme', n),
        workspaceId,
        label: theme.label,
        summary: theme.summary,
        memberCount: s.members,
        interactionCount: s.interactions,
        examples: s.examples.map(({ text, utteranceId, interactionId }) => ({ text, utteranceId, interactionId })),
        firstSeenAt: s.first,
        lastSeenAt: s.last,
        createdAt: now,
      });
    });
    return rows;
  }
}

/** Newest event and ingest per (source, surface), for source_freshness. */
export class FreshnessAccumulator {
  private readonly latest = new Map<string, { source: string; surface: WarehouseSurface; event: Date; ingest: Date }>();

  add(source: string, surface: WarehouseSurface, eventAt: Date, ingestAt: Date): void {
    const key = `${source}\u0000${surface}`;
    const cur = this.latest.get(key);
    if (!cur) {
      this.latest.set(key, { source, surface, event: eventAt, ingest: ingestAt });
      return;
    }
    if (eventAt > cur.event) cur.event = eventAt;
    if (ingestAt > cur.ingest) cur.ingest = ingestAt;
  }

  rows(workspaceId: string, now: Date): FreshnessRow[] {
    return [...this.latest.values()]
      .sort((a, b) => a.source.localeCompare(b.source) || a.surface.localeCompare(b.surface))
      .map((f, i) => {
        // Every connector polled a few minutes ago; a sync never precedes what it delivered.
        const polled = new Date(now.getTime() - (3 + ((i * 7) % 17)) * 60_000);
        return {
          workspaceId,
          source: f.source,
          surface: f.surface,
          latestEventAt: f.event,
          latestIngestAt: f.ingest,
          lastSyncAt: polled > f.ingest ? polled : f.ingest,
        };
      });
  }
}
