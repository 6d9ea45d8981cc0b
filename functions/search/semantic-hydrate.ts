import { sql } from 'drizzle-orm';
import { queryRows, type Queryable } from '../../platform/db/port.js';
import { toDate } from '../../platform/db/timestamps.js';
import { rowCoverage, type LaneContext, type LaneOutcome } from './lane.js';
import { customerVoice } from './scope-predicates.js';
import { errorText, idList, round } from './semantic-format.js';
import { attributionOf, hybridScoreOf, utteranceSql, type Match } from './semantic-utterances.js';

/**
 * `hydrate: true` on the semantic lane: bridges the first HYDRATE_BRIDGE_CAP matches to their
 * transcript turns (one row per distinct turn, full text); if the turn lookup fails, to their
 * interactions (`hydrated_grain: 'call'`: rows are context, not the matches). `audience:
 * customer_voice` is applied here, since only hydrated rows are bridged to an interaction.
 */

/** At most this many matches are bridged to turns (or calls); beyond it the result says `truncated: true`. */
export const HYDRATE_BRIDGE_CAP = 200;

interface TurnRow extends Record<string, unknown> {
  id: string;
  interaction_id: string;
  turn_index: number;
  speaker_name: string | null;
  side: string;
  text: string;
  occurred_at: Date | string;
  started_at_seconds: number | null;
  ended_at_seconds: number | null;
}

interface CallRow extends Record<string, unknown> {
  id: string;
  kind: string;
  title: string;
  occurred_at: Date | string;
  summary: string | null;
  account_id: string | null;
  source: string;
  duration_seconds: number | null;
}

/**
 * Counts when hydrate ran (documented in the API description through these fields):
 *   bridged   = the first min(match_count, 200) matches (the rest: `truncated: true`);
 *   bridged   = row_count + collapsed_matches + unresolved_matches + dropped by the audience;
 * so row_count <= match_count always. `audience: customer_voice` is applied to each bridged
 * match's interaction before grouping: a match on a dropped interaction is neither unresolved nor
 * collapsed, it leaves the accounting (detail.message says how many). Without the audience and the
 * cap, row_count + collapsed_matches + unresolved_matches = match_count exactly.
 */
export async function hydrateOutcome(
  ctx: LaneContext,
  matches: Match[],
  truncatedByLimit: boolean,
  /** The store read's record of intent (its filters included); the bridge's own SQL follows it. */
  readSql: string = utteranceSql(ctx.services.embedder.id, ctx.search.limit + 1),
): Promise<LaneOutcome> {
  const { services, workspaceId, search } = ctx;
  const bridged = matches.slice(0, HYDRATE_BRIDGE_CAP);
  const capped = matches.length > bridged.length;
  const truncated = truncatedByLimit || capped;
  const audience = search.audience === 'customer_voice';
  const notes: string[] = [];
  if (capped)
    notes.push(`Only the first ${HYDRATE_BRIDGE_CAP} of ${matches.length} matches were hydrated (bridge cap).`);
  else if (truncatedByLimit)
    notes.push(`More external utterances were similar to the query than the limit of ${search.limit}.`);

  /** The outcome for rows of one grain; every path below ends here. */
  const outcome = (
    grain: 'turn' | 'call',
    sqlText: string,
    grouped: Grouped,
    note: string,
    failed = false,
  ): LaneOutcome => ({
    compiledSql: `${readSql};\n${sqlText}`,
    gaps: { baseline: 'interactions_external' },
    freshnessStore: 'utterances_external',
    matchCount: matches.length,
    corpus: {
      store: 'pgvector',
      grain: 'utterance',
      content: 'full',
      speaker_scope: 'external_only',
      filters_applied: false,
      audience_applied: audience,
      hydrated_grain: grain,
      ...(truncated ? { truncated: true as const } : {}),
      unresolved_matches: grouped.unresolved,
      collapsed_matches: grouped.collapsed,
    },
    results: grouped.results,
    ...(failed
      ? { emptyReason: 'read_failed' as const }
      : grouped.results.length === 0
        ? { emptyReason: 'no_match' as const }
        : {}),
    coverage: rowCoverage(
      grouped.results.map((r) => toDate(r.occurred_at as string | null)),
      truncated,
    ),
    note,
  });
  const nothing: Grouped = { results: [], unresolved: 0, collapsed: 0 };

  let kept: Set<string> | null = null;
  if (audience) {
    try {
      kept = await customerVoiceInteractions(services.db, workspaceId, unique(bridged.map((m) => m.interactionId)));
    } catch (error) {
      return outcome(
        'turn',
        turnSql(audience),
        nothing,
        `The customer-voice predicate could not be evaluated (${errorText(error)}); no rows are returned rather than unfiltered ones.`,
        true,
      );
    }
  }
  const inAudience = bridged.filter((m) => !kept || kept.has(m.interactionId));
  const dropped = bridged.length - inAudience.length;
  if (audience)
    notes.push(
      `audience customer_voice dropped ${dropped} of ${bridged.length} hydrated matches (interactions with investors, media, competitors, vendors, partners and the like, where no buyer took part).`,
    );

  const turnIds = unique(inAudience.map((m) => m.turnId).filter((t): t is string => t !== null));
  let turns: Map<string, TurnRow> | null = null;
  let turnError: unknown = null;
  try {
    turns = await readTurns(services.db, workspaceId, turnIds);
  } catch (error) {
    turnError = error;
  }

  if (turns) {
    const found = turns;
    const grouped = groupMatches(
      inAudience,
      (m) => (m.turnId ? found.get(m.turnId) : undefined),
      (turn, m) => ({
        id: turn.id,
        interaction_id: m.interactionId,
        interaction_title: m.title,
        interaction_kind: m.kind,
        interaction_excluded: m.excluded,
        ...attributionOf(m),
        occurred_at: toDate(turn.occurred_at)?.toISOString() ?? null,
        turn_index: Number(turn.turn_index),
        speaker: turn.speaker_name,
        side: turn.side,
        started_at_seconds: turn.started_at_seconds === null ? null : Number(turn.started_at_seconds),
        ended_at_seconds: turn.ended_at_seconds === null ? null : Number(turn.ended_at_seconds),
        text: turn.text,
        similarity: round(m.similarity),
        ...hybridScoreOf(m),
      }),
    );
    if (grouped.unresolved > 0)
      notes.push(`${grouped.unresolved} match${grouped.unresolved === 1 ? '' : 'es'} belong to no transcript turn.`);
    if (grouped.collapsed > 0)
      notes.push(
        `${grouped.collapsed} match${grouped.collapsed === 1 ? '' : 'es'} fell in a turn another match had already claimed.`,
      );
    return outcome('turn', turnSql(audience), grouped, notes.join(' '));
  }

  // The turn lookup failed: fall back to the matches' calls (context, not the matches themselves).
  notes.unshift(
    `The transcript turn lookup failed (${errorText(turnError)}); rows are the interactions the matches come from (context, not the matches).`,
  );
  let calls: Map<string, CallRow>;
  try {
    calls = await readCalls(services.db, workspaceId, unique(inAudience.map((m) => m.interactionId)));
  } catch (error) {
    return outcome(
      'call',
      callSql(audience),
      nothing,
      `${notes[0]} The interaction lookup failed too (${errorText(error)}).`,
      true,
    );
  }
  const grouped = groupMatches(
    inAudience,
    (m) => calls.get(m.interactionId),
    (call, m) => ({
      id: call.id,
      interaction_id: call.id,
      interaction_title: call.title,
      interaction_kind: call.kind,
      interaction_excluded: m.excluded,
      ...attributionOf(m),
      occurred_at: toDate(call.occurred_at)?.toISOString() ?? null,
      source: call.source,
      duration_seconds: call.duration_seconds === null ? null : Number(call.duration_seconds),
      summary: call.summary,
      similarity: round(m.similarity),
      ...hybridScoreOf(m),
    }),
  );
  return outcome('call', callSql(audience), grouped, notes.join(' '));
}

/**
 * One row per distinct target (turn or call) of the matches, in match order: the first match claims
 * the row, later ones join its `match_ids` (collapsed); a match with no target is unresolved.
 */
interface Grouped {
  results: (Record<string, unknown> & { match_ids: string[] })[];
  unresolved: number;
  collapsed: number;
}

function groupMatches<T extends { id: string }>(
  matches: readonly Match[],
  targetOf: (m: Match) => T | undefined,
  rowOf: (target: T, m: Match) => Record<string, unknown>,
): Grouped {
  const rows = new Map<string, Record<string, unknown> & { match_ids: string[] }>();
  let unresolved = 0;
  let collapsed = 0;
  for (const m of matches) {
    const target = targetOf(m);
    if (!target) {
      unresolved++;
      continue;
    }
    const claimed = rows.get(target.id);
    if (claimed) {
      claimed.match_ids.push(m.id);
      collapsed++;
      continue;
    }
    rows.set(target.id, { ...rowOf(target, m), match_ids: [m.id] });
  }
  return { results: [...rows.values()], unresolved, collapsed };
}

async function customerVoiceInteractions(db: Queryable, workspaceId: string, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await queryRows<{ id: string }>(
    db,
    sql`select i.id from interactions i
        where i.workspace_id = ${workspaceId} and i.id in (${idList(ids)}) and ${customerVoice(workspaceId, sql`i.id`, sql`i.account_id`)}`,
  );
  return new Set(rows.map((r) => r.id));
}

async function readTurns(db: Queryable, workspaceId: string, ids: string[]): Promise<Map<string, TurnRow>> {
  if (ids.length === 0) return new Map();
  const rows = await queryRows<TurnRow>(
    db,
    sql`select t.id, t.interaction_id, t.turn_index, t.speaker_name, t.side, t.text, t.occurred_at, t.started_at_seconds, t.ended_at_seconds
        from transcript_turns t where t.workspace_id = ${workspaceId} and t.id in (${idList(ids)})`,
  );
  return new Map(rows.map((r) => [r.id, r]));
}

async function readCalls(db: Queryable, workspaceId: string, ids: string[]): Promise<Map<string, CallRow>> {
  if (ids.length === 0) return new Map();
  const rows = await queryRows<CallRow>(
    db,
    sql`select i.id, i.kind, i.title, i.occurred_at, i.summary, i.account_id, i.source, i.duration_seconds
        from interactions i where i.workspace_id = ${workspaceId} and i.id in (${idList(ids)})`,
  );
  return new Map(rows.map((r) => [r.id, r]));
}

const unique = <T>(values: readonly T[]): T[] => [...new Set(values)];

// Records of intent (compiled.sql): no tenant predicate, the id lists named.
function turnSql(audience: boolean): string {
  return [
    'SELECT t.id, t.interaction_id, t.turn_index, t.speaker_name, t.side, t.text, t.occurred_at FROM transcript_turns t',
    `WHERE t.id IN (:turn_ids_of_first_${HYDRATE_BRIDGE_CAP}_matches)${audience ? ' AND customer_voice(t.interaction_id)' : ''}`,
  ].join('\n');
}

function callSql(audience: boolean): string {
  return [
    'SELECT i.id, i.kind, i.title, i.occurred_at, i.summary, i.account_id, i.source, i.duration_seconds FROM interactions i',
    `WHERE i.id IN (:interaction_ids_of_first_${HYDRATE_BRIDGE_CAP}_matches)${audience ? ' AND customer_voice(i.id)' : ''}`,
  ].join('\n');
}
