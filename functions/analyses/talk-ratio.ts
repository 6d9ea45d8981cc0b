import { z } from '@hono/zod-openapi';
import { sql, type SQL } from 'drizzle-orm';
import { queryRows, type Queryable } from '../../platform/db/port.js';
import { forEachConversationSlice, interactionInScope } from '../search/index.js';
import { AnalysisPeriodSchema, defineAnalysis, type AnalysisOutput } from './analysis.js';
import { accountNamesIn, periodWords, share } from './analysis-words.js';

/**
 * Talk ratio: how much of the speaking time on calls and meetings each of the workspace's own people
 * took, from the transcript turns' start and end seconds. A rep's share is their seconds over all the
 * seconds spoken (by either side) in the conversations they spoke in, so a rep is measured against the
 * conversations they were in, not against everyone's. Turns without timings are left out and counted.
 */

const TalkRatioBodySchema = z
  .object({
    period: AnalysisPeriodSchema.optional().openapi({ description: 'When the conversations happened; absent: all.' }),
    reps: z
      .array(z.string().trim().min(1).max(200))
      .max(50)
      .optional()
      .openapi({ description: "Only these of the workspace's own speakers: emails, full names or first names." }),
    accounts: z
      .array(z.string().trim().min(1).max(300))
      .max(50)
      .optional()
      .openapi({ description: 'Only conversations on these accounts (names, case-insensitive).' }),
    kinds: z
      .array(z.enum(['call', 'meeting']))
      .min(1)
      .max(2)
      .default(['call', 'meeting'])
      .openapi({ description: 'Which conversations: calls, meetings or both (emails have no speaking time).' }),
    order: z
      .enum(['most', 'least'])
      .default('most')
      .openapi({ description: '`most`: the largest talk share first; `least`: the best listeners first.' }),
    limit: z.number().int().min(1).max(50).default(20),
  })
  .strict()
  .openapi('TalkRatioRequest');

interface RepRow extends Record<string, unknown> {
  rep: string;
  rep_email: string;
  conversations: number;
  talk_seconds: number;
  spoken_seconds: number;
  talk_share_pct: number;
}

export const talkRatio = defineAnalysis({
  name: 'talk_ratio',
  path: 'talk-ratio',
  summary: 'Talk ratio: each rep’s share of the speaking time on calls and meetings',
  description:
    "From the transcript turns' timings: each of the workspace's own speakers, the seconds they spoke, the seconds spoken by everyone in the conversations they spoke in, and their share (a rep talking 40% of their calls has `talk_share_pct` 40). Also the two sides' shares over all the conversations read.",
  body: TalkRatioBodySchema,
  example: { period: { from: '2026-07-01', to: '2026-10-01' }, order: 'most', limit: 10 },
  async run(ctx, input, cite): Promise<AnalysisOutput> {
    const workspaceId = ctx.caller.workspaceId;
    const where = conversationScope(workspaceId, input);
    const repFilter = input.reps?.length ? repMatch(input.reps) : sql`true`;
    const { byRep: allReps, overall } = await speakingTime(ctx.services.db, workspaceId, where, repFilter);
    const byRep = allReps
      .sort((x, y) =>
        x.talk_share_pct !== y.talk_share_pct
          ? input.order === 'least'
            ? x.talk_share_pct - y.talk_share_pct
            : y.talk_share_pct - x.talk_share_pct
          : x.rep_email < y.rep_email
            ? -1
            : x.rep_email > y.rep_email
              ? 1
              : 0,
      )
      .slice(0, input.limit);
    const overallRows = overall ? [overall] : [];
    const scope = `${input.kinds.map((k) => `${k}s`).join(' and ')}${input.accounts?.length ? ` on ${accountNamesIn(input.accounts)}` : ''}${periodWords(input.period)}`;
    // The reps asked for by the names the data has for them (the request may name them by address).
    const asked = input.reps?.length ? (byRep.length > 0 ? byRep.map((r) => r.rep) : input.reps) : null;
    const readAs = `talk ratio of ${asked ? asked.join(', ') : 'each rep'} on ${scope}, ${input.order === 'least' ? 'lowest' : 'highest'} share first`;
    if (byRep.length === 0)
      return {
        analysis: 'talk_ratio',
        read_as: readAs,
        summary: [],
        blocks: [],
        results: { by_rep: [], overall: overallRows },
        empty_reason: input.reps?.length
          ? `None of ${input.reps.join(', ')} spoke in timed ${scope}.`
          : `No timed turns of the team's own speakers in ${scope}.`,
      };
    const first = byRep[0]!;
    const summary = [
      byRep.length > 1
        ? `${first.rep} has the ${input.order === 'least' ? 'lowest' : 'highest'} talk share of the reps shown: ${share(first.talk_share_pct)} of the speaking time in the ${first.conversations} conversations they spoke in.`
        : `${first.rep} spoke ${share(first.talk_share_pct)} of the time in the ${first.conversations} conversations they spoke in.`,
    ];
    if (overall?.internal_share_pct != null && !input.reps?.length)
      summary.push(
        `Across all ${overall.conversations} ${scope}, our side spoke ${share(overall.internal_share_pct)} of the time and customers ${share(overall.external_share_pct ?? 0)}.`,
      );
    return {
      analysis: 'talk_ratio',
      read_as: readAs,
      summary,
      blocks: [
        {
          kind: 'table',
          title: 'Talk share by rep',
          columns: [
            { key: 'rep', label: 'Rep' },
            { key: 'talk_share_pct', label: 'Talk share (%)' },
            { key: 'conversations', label: 'Conversations' },
            { key: 'talk_seconds', label: 'Seconds talking' },
            { key: 'spoken_seconds', label: 'Seconds spoken in their conversations' },
          ],
          data: byRep,
          query: cite('by_rep') as unknown as Record<string, unknown>,
        },
        ...(overall && overall.internal_share_pct != null && !input.reps?.length
          ? [
              {
                kind: 'table' as const,
                title: 'Both sides over all conversations',
                columns: [
                  { key: 'conversations', label: 'Conversations' },
                  { key: 'internal_share_pct', label: 'Our side (%)' },
                  { key: 'external_share_pct', label: 'Customers (%)' },
                  { key: 'untimed_turns', label: 'Turns without timings (left out)' },
                ],
                data: overallRows,
                query: cite('overall') as unknown as Record<string, unknown>,
              },
            ]
          : []),
      ],
      results: { by_rep: byRep, overall: overallRows },
      empty_reason: null,
    };
  },
});

interface OverallRow extends Record<string, unknown> {
  conversations: number;
  internal_share_pct: number | null;
  external_share_pct: number | null;
  untimed_turns: number;
}

/** One slice's sums for a rep: their seconds and the seconds spoken in the conversations they spoke in. */
interface RepSliceRow extends Record<string, unknown> {
  rep_email: string;
  rep_name: string | null;
  conversations: number;
  talk_seconds: number;
  spoken_seconds: number;
}

interface SliceTotals extends Record<string, unknown> {
  conversations: number;
  internal_seconds: number | null;
  external_seconds: number | null;
  seconds: number | null;
  untimed_turns: number;
}

/**
 * Every rep's speaking time and the two sides' totals over the conversations `where` selects, summed a
 * slice of conversations per statement (forEachConversationSlice: one aggregate over every turn of a
 * large workspace holds an embedded database, and every tenant, until it ends). A slice holds whole
 * conversations, so a conversation's total is complete in its slice; the sums add across slices and
 * the shares are taken once at the end.
 */
async function speakingTime(
  db: Queryable,
  workspaceId: string,
  where: SQL,
  repFilter: SQL,
): Promise<{ byRep: RepRow[]; overall: OverallRow | null }> {
  const reps = new Map<string, { name: string | null; conversations: number; talk: number; spoken: number }>();
  const totals = {
    conversations: 0,
    untimed: 0,
    internal: null as number | null,
    external: null as number | null,
    seconds: null as number | null,
  };
  await forEachConversationSlice(
    db,
    workspaceId,
    async (slice) => {
      const turns = sql`
      select t.interaction_id, t.side, t.speaker_name, lower(t.speaker_email) as speaker_email,
             greatest(t.ended_at_seconds - t.started_at_seconds, 0)::float8 as secs
      from transcript_turns t join interactions i on i.id = t.interaction_id and i.workspace_id = t.workspace_id
      where t.workspace_id = ${workspaceId} and ${slice.over(sql`t.occurred_at`, sql`t.interaction_id`)}
        and ${slice.over(sql`i.occurred_at`, sql`i.id`)} and ${where}
        and t.started_at_seconds is not null and t.ended_at_seconds is not null`;
      const repRows = await queryRows<RepSliceRow>(
        db,
        sql`with turns as (${turns}),
        per_conversation as (select interaction_id, sum(secs) as total from turns group by interaction_id),
        rep_conversation as (
          select speaker_email, max(speaker_name) as speaker_name, interaction_id, sum(secs) as secs
          from turns where side = 'internal' and speaker_email is not null group by speaker_email, interaction_id)
      select rc.speaker_email as rep_email, max(rc.speaker_name) as rep_name, count(*)::int as conversations,
             sum(rc.secs)::float8 as talk_seconds, sum(pc.total)::float8 as spoken_seconds
      from rep_conversation rc join per_conversation pc using (interaction_id)
      where ${repFilter}
      group by rc.speaker_email`,
      );
      for (const r of repRows) {
        const rep = reps.get(r.rep_email) ?? { name: null, conversations: 0, talk: 0, spoken: 0 };
        if (r.rep_name !== null && (rep.name === null || r.rep_name > rep.name)) rep.name = r.rep_name;
        rep.conversations += r.conversations;
        rep.talk += r.talk_seconds;
        rep.spoken += r.spoken_seconds;
        reps.set(r.rep_email, rep);
      }
      const [sums] = await queryRows<SliceTotals>(
        db,
        sql`select count(distinct interaction_id)::int as conversations,
             (sum(secs) filter (where side = 'internal'))::float8 as internal_seconds,
             (sum(secs) filter (where side = 'external'))::float8 as external_seconds,
             sum(secs)::float8 as seconds,
             (select count(*)::int from transcript_turns t join interactions i on i.id = t.interaction_id and i.workspace_id = t.workspace_id
               where t.workspace_id = ${workspaceId} and ${slice.over(sql`t.occurred_at`, sql`t.interaction_id`)}
                 and ${slice.over(sql`i.occurred_at`, sql`i.id`)} and ${where}
                 and (t.started_at_seconds is null or t.ended_at_seconds is null)) as untimed_turns
      from (${turns}) turns`,
      );
      if (sums) {
        totals.conversations += sums.conversations;
        totals.internal = addKnown(totals.internal, sums.internal_seconds);
        totals.external = addKnown(totals.external, sums.external_seconds);
        totals.seconds = addKnown(totals.seconds, sums.seconds);
        totals.untimed += sums.untimed_turns;
      }
      return true;
    },
    { where },
  );
  const byRep: RepRow[] = [...reps]
    .filter(([, r]) => r.spoken > 0)
    .map(([email, r]) => ({
      rep: r.name ?? email,
      rep_email: email,
      conversations: r.conversations,
      talk_seconds: Math.round(r.talk),
      spoken_seconds: Math.round(r.spoken),
      talk_share_pct: percentTenths(r.talk, r.spoken),
    }));
  const overall: OverallRow = {
    conversations: totals.conversations,
    internal_share_pct: sharePct(totals.internal, totals.seconds),
    external_share_pct: sharePct(totals.external, totals.seconds),
    untimed_turns: totals.untimed,
  };
  return { byRep, overall };
}

/** A sum over slices, unknown (SQL's null: no rows) until one slice knows it. */
const addKnown = (sum: number | null, part: number | null): number | null => (part === null ? sum : (sum ?? 0) + part);

/** A side's share of the seconds spoken, as SQL's `part / nullif(whole, 0)` reads: null without either. */
const sharePct = (part: number | null, whole: number | null): number | null =>
  part === null || whole === null || whole === 0 ? null : percentTenths(part, whole);

/**
 * 100 × part / whole to one decimal, as Postgres rounds a float8 cast to numeric: to 15 significant
 * digits first, then half away from zero (a bare Math.round of 12.35 × 10 reads 123.4999… and rounds down).
 */
function percentTenths(part: number, whole: number): number {
  const tenths = Number(((1000 * part) / whole).toPrecision(15));
  return (Math.sign(tenths) * Math.round(Math.abs(tenths))) / 10;
}

/** The conversations read: in this workspace's scope, of the kinds asked, in the period, on the accounts. */
function conversationScope(workspaceId: string, input: z.output<typeof TalkRatioBodySchema>): SQL {
  const parts: SQL[] = [
    interactionInScope(workspaceId, sql`i.id`),
    sql`i.kind in (${sql.join(
      input.kinds.map((k) => sql`${k}`),
      sql`, `,
    )})`,
  ];
  if (input.period)
    parts.push(sql`i.occurred_at >= ${input.period.from}::date and i.occurred_at < ${input.period.to}::date`);
  if (input.accounts?.length)
    parts.push(sql`exists (select 1 from accounts a where a.workspace_id = ${workspaceId} and a.id = i.account_id
      and lower(a.name) in (${sql.join(
        input.accounts.map((n) => sql`${n.toLowerCase()}`),
        sql`, `,
      )}))`);
  return sql.join(parts, sql` and `);
}

/** A rep named by email, full name or first name (case-insensitive). */
function repMatch(reps: readonly string[]): SQL {
  const lowered = sql.join(
    reps.map((r) => sql`${r.toLowerCase()}`),
    sql`, `,
  );
  return sql`(rc.speaker_email in (${lowered}) or lower(rc.speaker_name) in (${lowered})
    or split_part(lower(rc.speaker_name), ' ', 1) in (${lowered}))`;
}
