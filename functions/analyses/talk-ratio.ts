import { z } from '@hono/zod-openapi';
import { sql, type SQL } from 'drizzle-orm';
import { queryRows } from '../../platform/db/port.js';
import { interactionInScope } from '../search/index.js';
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
    const turns = sql`
      select t.interaction_id, t.side, t.speaker_name, lower(t.speaker_email) as speaker_email,
             greatest(t.ended_at_seconds - t.started_at_seconds, 0) as secs
      from transcript_turns t join interactions i on i.id = t.interaction_id and i.workspace_id = t.workspace_id
      where t.workspace_id = ${workspaceId} and ${where}
        and t.started_at_seconds is not null and t.ended_at_seconds is not null`;
    const direction = input.order === 'least' ? sql`asc` : sql`desc`;
    const byRep = await queryRows<RepRow>(
      ctx.services.db,
      sql`with turns as (${turns}),
        per_conversation as (select interaction_id, sum(secs) as total from turns group by interaction_id),
        rep_conversation as (
          select speaker_email, max(speaker_name) as speaker_name, interaction_id, sum(secs) as secs
          from turns where side = 'internal' and speaker_email is not null group by speaker_email, interaction_id)
      select coalesce(max(rc.speaker_name), rc.speaker_email) as rep, rc.speaker_email as rep_email,
             count(*)::int as conversations, round(sum(rc.secs))::int as talk_seconds,
             round(sum(pc.total))::int as spoken_seconds,
             round((100 * sum(rc.secs) / nullif(sum(pc.total), 0))::numeric, 1)::float8 as talk_share_pct
      from rep_conversation rc join per_conversation pc using (interaction_id)
      where ${repFilter}
      group by rc.speaker_email
      having sum(pc.total) > 0
      order by talk_share_pct ${direction}, rep_email
      limit ${input.limit}`,
    );
    const [overall] = await queryRows<{
      conversations: number;
      internal_share_pct: number | null;
      external_share_pct: number | null;
      untimed_turns: number;
    }>(
      ctx.services.db,
      sql`with turns as (${turns})
      select count(distinct interaction_id)::int as conversations,
             round((100 * sum(secs) filter (where side = 'internal') / nullif(sum(secs), 0))::numeric, 1)::float8 as internal_share_pct,
             round((100 * sum(secs) filter (where side = 'external') / nullif(sum(secs), 0))::numeric, 1)::float8 as external_share_pct,
             (select count(*)::int from transcript_turns t join interactions i on i.id = t.interaction_id and i.workspace_id = t.workspace_id
               where t.workspace_id = ${workspaceId} and ${where}
                 and (t.started_at_seconds is null or t.ended_at_seconds is null)) as untimed_turns
      from turns`,
    );
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
