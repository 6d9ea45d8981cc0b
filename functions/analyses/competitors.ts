import { z } from '@hono/zod-openapi';
import { sql, type SQL } from 'drizzle-orm';
import { queryRows, type Queryable } from '../../platform/db/port.js';
import type { BlockDraft } from '../agents/answer.js';
import { bestExcerpt, competitorsNamedIn } from '../agents/index.js';
import { AnalysisPeriodSchema, defineAnalysis, type AnalysisOutput } from './analysis.js';
import { collectFromConversationSlices, forEachConversationSlice } from '../search/index.js';
import { ConversationKindsSchema, conversationsWhere, filterWords, kindWords } from './analysis-scope.js';
import { inPeriod } from './deal-scope.js';
import { periodWords, share } from './analysis-words.js';

/**
 * Competitors: which rivals come up in the workspace's conversations (the names people use after
 * comparison language, understanding/competitors.ts, or the ones asked), in how many conversations,
 * on which accounts and deals, and how the deals where each came up ended — won, lost, still open,
 * and their win rate beside the rest of the deals'.
 */

const Names = z.array(z.string().trim().min(1).max(300)).max(50);

const CompetitorsBodySchema = z
  .object({
    period: AnalysisPeriodSchema.optional(),
    competitors: Names.optional().openapi({
      description:
        'Only these (case-insensitive); absent: those named after "switching from", "looking at" and the like.',
    }),
    accounts: Names.optional(),
    kinds: ConversationKindsSchema,
    limit: z.number().int().min(1).max(50).default(10),
  })
  .strict()
  .openapi('CompetitorsRequest');
type Body = z.output<typeof CompetitorsBodySchema>;

interface CompetitorRow extends Record<string, unknown> {
  competitor: string;
  conversations: number;
  accounts: number;
  deals: number;
  won: number;
  lost: number;
  open: number;
  win_rate_pct: number | null;
  rest_win_rate_pct: number | null;
}

interface DealRow extends Record<string, unknown> {
  competitor: string;
  account: string | null;
  deal: string | null;
  stage: string | null;
  conversations: number;
}

interface QuoteRow extends Record<string, unknown> {
  competitor: string;
  interaction_id: string;
  turn_id: string;
  text: string;
  speaker: string | null;
  occurred_at: string;
  account: string | null;
  deal: string | null;
}

/** The accounts and deals shown per competitor, most conversations first (the counts cover them all). */
const DEALS_PER_COMPETITOR = 8;
const ALL_DEALS_OF_ONE = 100;

const likePattern = (name: string): string => `%${name.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

export const competitors = defineAnalysis({
  name: 'competitors',
  path: 'competitors',
  summary: 'Competitors: which come up, how often, on which accounts and deals, and our win rate where they do',
  description:
    "Each competitor the conversations name (or those asked): conversations mentioning it, their accounts and deals, won / lost / open and win rate beside the other deals', and a buyer quote.",
  body: CompetitorsBodySchema,
  example: { period: { from: '2026-07-01', to: '2026-10-01' }, limit: 5 },
  async run(ctx, input, cite): Promise<AnalysisOutput> {
    const workspaceId = ctx.caller.workspaceId;
    const db = ctx.services.db;
    const names = input.competitors?.length
      ? [...new Set(input.competitors)]
      : await competitorsNamedIn(db, workspaceId, ctx.memo);
    const scope = `${kindWords(input.kinds)}${filterWords({ accounts: input.accounts })}${periodWords(input.period)}`;
    const who = input.competitors?.length ? input.competitors.join(', ') : 'every competitor the conversations name';
    const readAs = `mentions of ${who} in ${scope}, the accounts and deals they belong to, and how those deals stand`;
    const empty = (reason: string): AnalysisOutput => ({
      analysis: 'competitors',
      read_as: readAs,
      summary: [],
      blocks: [],
      results: { competitors: [], deals: [], overall: [] },
      empty_reason: reason,
    });
    if (names.length === 0)
      return empty('No competitor is named in the conversations (after words like "switching from" or "looking at").');
    const found = await mentionsOf(db, workspaceId, input, names);
    const bound = found.readBackTo
      ? `; only the newest conversations were read, back to ${found.readBackTo} (one analysis reads at most ${MAX_MENTIONS.toLocaleString('en-US')} mentions: narrow the period, the accounts or the competitors to read older ones)`
      : '';
    if (found.rows.length === 0)
      return { ...empty(`None of ${names.join(', ')} comes up in ${scope}.`), read_as: readAs + bound };
    // The mentions found, slice by slice, as the rows the counts below read: those statements never scan the text.
    const mentions = sql`select * from jsonb_to_recordset(${JSON.stringify(found.rows)}::jsonb)
      as m(competitor text, interaction_id uuid, account_id uuid, deal_id uuid)`;
    const deals = dealsScope(workspaceId, input);
    const ranked = await queryRows<CompetitorRow>(
      db,
      sql`with mentions as (${mentions}),
        closed as (select id, is_won from deals d where ${deals} and d.is_closed),
        per as (
          select m.competitor, count(distinct m.interaction_id)::int as conversations,
                 count(distinct m.account_id)::int as accounts, count(distinct m.deal_id)::int as deals,
                 count(distinct m.deal_id) filter (where d.is_won)::int as won,
                 count(distinct m.deal_id) filter (where d.is_closed and not d.is_won)::int as lost,
                 count(distinct m.deal_id) filter (where not d.is_closed)::int as open
          from mentions m left join deals d on d.id = m.deal_id and d.workspace_id = ${workspaceId}
          group by m.competitor)
      select per.*,
             round((100.0 * won / nullif(won + lost, 0))::numeric, 1)::float8 as win_rate_pct,
             (select round((100.0 * count(*) filter (where c.is_won) / nullif(count(*), 0))::numeric, 1)::float8
                from closed c where c.id not in (select m.deal_id from mentions m
                  where m.competitor = per.competitor and m.deal_id is not null)) as rest_win_rate_pct
      from per order by conversations desc, accounts desc, competitor limit ${input.limit}`,
    );
    if (ranked.length === 0)
      return { ...empty(`None of ${names.join(', ')} comes up in ${scope}.`), read_as: readAs + bound };
    const shown = ranked.map((r) => r.competitor);
    // One competitor asked about: every account and deal where it came up; several: the leading ones of each.
    const perCompetitor = shown.length === 1 ? ALL_DEALS_OF_ONE : DEALS_PER_COMPETITOR;
    const byDeal = await queryRows<DealRow>(
      db,
      sql`with mentions as (${mentions})
      select competitor, account, deal, stage, conversations from (
        select m.competitor, a.name as account, d.name as deal, d.stage,
               count(distinct m.interaction_id)::int as conversations,
               row_number() over (partition by m.competitor
                 order by count(distinct m.interaction_id) desc, a.name, d.name nulls last) as rank
        from mentions m left join accounts a on a.id = m.account_id and a.workspace_id = ${workspaceId}
          left join deals d on d.id = m.deal_id and d.workspace_id = ${workspaceId}
        where m.competitor in (${inList(shown)}) and m.account_id is not null
        group by m.competitor, a.name, d.name, d.stage) ranked
      where rank <= ${perCompetitor}
      order by array_position(array[${inList(shown)}]::text[], competitor), rank`,
    );
    const [overall] = await queryRows<{
      deals_with: number;
      win_rate_with_pct: number | null;
      deals_without: number;
      win_rate_without_pct: number | null;
    }>(
      db,
      sql`with mentions as (${mentions}),
        tagged as (select d.id, d.is_won, d.id in (select deal_id from mentions where deal_id is not null) as came_up
                   from deals d where ${deals} and d.is_closed)
      select count(*) filter (where came_up)::int as deals_with,
             round((100.0 * count(*) filter (where came_up and is_won) / nullif(count(*) filter (where came_up), 0))::numeric, 1)::float8 as win_rate_with_pct,
             count(*) filter (where not came_up)::int as deals_without,
             round((100.0 * count(*) filter (where not came_up and is_won) / nullif(count(*) filter (where not came_up), 0))::numeric, 1)::float8 as win_rate_without_pct
      from tagged`,
    );
    const quotes = await quotesOf(db, workspaceId, input, shown);
    const overallRows = overall ? [overall] : [];
    const first = ranked[0]!;
    const summary = [
      input.competitors?.length === 1
        ? `${first.competitor} comes up in ${first.conversations} conversations with ${first.accounts} accounts, on ${first.deals} deals.`
        : `${first.competitor} comes up most: in ${first.conversations} conversations with ${first.accounts} accounts${ranked[1] ? `, then ${ranked[1].competitor} (${ranked[1].conversations})` : ''}.`,
      ...ranked
        .slice(0, input.competitors?.length === 1 ? 1 : 3)
        .filter((r) => r.win_rate_pct !== null)
        .map(
          (r) =>
            `On the deals where ${r.competitor} came up we won ${r.won} and lost ${r.lost} (${r.open} open): a win rate of ${share(r.win_rate_pct!)}${r.rest_win_rate_pct !== null ? `, against ${share(r.rest_win_rate_pct)} on the other closed deals` : ''}.`,
        ),
    ];
    const blocks: BlockDraft[] = [
      {
        kind: 'table',
        title: `Competitors in ${scope}`,
        columns: [
          { key: 'competitor', label: 'Competitor' },
          { key: 'conversations', label: 'Conversations' },
          { key: 'accounts', label: 'Accounts' },
          { key: 'deals', label: 'Deals' },
          { key: 'won', label: 'Won' },
          { key: 'lost', label: 'Lost' },
          { key: 'open', label: 'Open' },
          { key: 'win_rate_pct', label: 'Win rate (%)' },
          { key: 'rest_win_rate_pct', label: 'Win rate of the other deals (%)' },
        ],
        data: ranked,
        query: cite('competitors') as unknown as Record<string, unknown>,
      },
      ...(byDeal.length > 0
        ? [
            {
              kind: 'table' as const,
              title:
                shown.length === 1
                  ? `Accounts and deals where ${shown[0]} came up, most conversations first`
                  : `Accounts and deals where they came up (up to ${DEALS_PER_COMPETITOR} each, most conversations first)`,
              columns: [
                { key: 'competitor', label: 'Competitor' },
                { key: 'account', label: 'Account' },
                { key: 'deal', label: 'Deal' },
                { key: 'stage', label: 'Stage' },
                { key: 'conversations', label: 'Conversations' },
              ],
              data: byDeal,
              query: cite('deals') as unknown as Record<string, unknown>,
            },
          ]
        : []),
      ...(overall && !input.competitors?.length
        ? [
            {
              kind: 'table' as const,
              title: 'Closed deals with and without a competitor in the conversations',
              columns: [
                { key: 'deals_with', label: 'Deals where one came up' },
                { key: 'win_rate_with_pct', label: 'Their win rate (%)' },
                { key: 'deals_without', label: 'Deals where none did' },
                { key: 'win_rate_without_pct', label: 'Their win rate (%)' },
              ],
              data: overallRows,
              query: cite('overall') as unknown as Record<string, unknown>,
            },
          ]
        : []),
      ...quotes.map(
        (q): BlockDraft => ({
          kind: 'quote',
          text: bestExcerpt(q.text, q.competitor),
          source: {
            interaction_id: q.interaction_id,
            turn_id: q.turn_id,
            speaker: q.speaker,
            occurred_at: q.occurred_at,
            account: q.account,
            deal: q.deal,
            side: 'external',
          },
          stance: 'context',
        }),
      ),
    ];
    return {
      analysis: 'competitors',
      read_as: readAs + bound,
      summary,
      blocks,
      results: { competitors: ranked, deals: byDeal, overall: overallRows },
      empty_reason: null,
    };
  },
});

const inList = (values: readonly string[]): SQL =>
  sql.join(
    values.map((v) => sql`${v}`),
    sql`, `,
  );

/** The mention rows one analysis reads at most; past it the oldest conversations are left unread, and the answer says so. */
export const MAX_MENTIONS = 20_000;

interface MentionRow extends Record<string, unknown> {
  competitor: string;
  interaction_id: string;
  account_id: string | null;
  deal_id: string | null;
}

/**
 * One row per competitor and conversation in scope that names it anywhere (title, summary, body, a
 * turn), read a slice of conversations per statement (forEachConversationSlice: a scan of every
 * turn's text in one statement holds the database from every tenant for as long as the corpus is
 * large), newest first, until MAX_MENTIONS; `readBackTo` is the oldest day read when that stopped it.
 */
async function mentionsOf(
  db: Queryable,
  workspaceId: string,
  input: Body,
  names: readonly string[],
): Promise<{ rows: MentionRow[]; readBackTo: string | null }> {
  const named = sql.join(
    names.map((n) => sql`(${n}, ${likePattern(n)})`),
    sql`, `,
  );
  return collectFromConversationSlices(
    db,
    workspaceId,
    (slice) => {
      const inSlice = slice.over(sql`i.occurred_at`, sql`i.id`);
      return queryRows<MentionRow>(
        db,
        sql`select distinct hit.competitor, i.id as interaction_id, i.account_id, i.deal_id
          from (
            select n.competitor, i.id from (values ${named}) as n(competitor, pattern)
            join interactions i on i.workspace_id = ${workspaceId} and ${inSlice}
              and (i.title ilike n.pattern escape '\\' or i.summary ilike n.pattern escape '\\' or i.body ilike n.pattern escape '\\')
            union
            select n.competitor, tt.interaction_id from (values ${named}) as n(competitor, pattern)
            join transcript_turns tt on tt.workspace_id = ${workspaceId}
              and ${slice.over(sql`tt.occurred_at`, sql`tt.interaction_id`)} and tt.text ilike n.pattern escape '\\'
          ) hit
          join interactions i on i.id = hit.id and i.workspace_id = ${workspaceId}
          left join accounts a on a.id = i.account_id and a.workspace_id = i.workspace_id
          where ${inSlice} and ${conversationsWhere(workspaceId, { period: input.period, accounts: input.accounts, kinds: input.kinds })}`,
      );
    },
    { where: inPeriod(sql`i.occurred_at`, input.period), max: MAX_MENTIONS },
  );
}

/** The deals a win rate is read over: the workspace's, on the accounts asked. */
function dealsScope(workspaceId: string, input: Body): SQL {
  const onAccounts = input.accounts?.length
    ? sql` and d.account_id in (select a.id from accounts a where a.workspace_id = ${workspaceId}
        and lower(a.name) in (${inList(input.accounts.map((n) => n.toLowerCase()))}))`
    : sql``;
  return sql`d.workspace_id = ${workspaceId}${onAccounts}`;
}

/**
 * The newest customer turn naming each competitor, in scope: what buyers say about it, verbatim. Read
 * newest slice first, each slice for the competitors not quoted yet, so it stops once each has one.
 */
async function quotesOf(
  db: Queryable,
  workspaceId: string,
  input: Body,
  names: readonly string[],
): Promise<QuoteRow[]> {
  const quoted = new Map<string, QuoteRow>();
  await forEachConversationSlice(
    db,
    workspaceId,
    async (slice) => {
      const left = names.filter((n) => !quoted.has(n));
      const rows = await queryRows<QuoteRow>(
        db,
        sql`select distinct on (n.competitor) n.competitor, i.id as interaction_id, t.id as turn_id, t.text,
               t.speaker_name as speaker, i.occurred_at::text as occurred_at, a.name as account, d.name as deal
        from (values ${sql.join(
          left.map((n) => sql`(${n}, ${likePattern(n)})`),
          sql`, `,
        )}) as n(competitor, pattern)
        join transcript_turns t on t.workspace_id = ${workspaceId} and ${slice.over(sql`t.occurred_at`, sql`t.interaction_id`)}
          and t.side = 'external' and t.text ilike n.pattern escape '\\'
        join interactions i on i.id = t.interaction_id and i.workspace_id = t.workspace_id
        left join accounts a on a.id = i.account_id and a.workspace_id = i.workspace_id
        left join deals d on d.id = i.deal_id and d.workspace_id = i.workspace_id
        where ${slice.over(sql`i.occurred_at`, sql`i.id`)}
          and ${conversationsWhere(workspaceId, { period: input.period, accounts: input.accounts, kinds: input.kinds })}
        order by n.competitor, i.occurred_at desc, t.turn_index`,
      );
      for (const row of rows) quoted.set(row.competitor, row);
      return quoted.size < names.length;
    },
    { where: inPeriod(sql`i.occurred_at`, input.period) },
  );
  return names.flatMap((n) => {
    const row = quoted.get(n);
    return row ? [row] : [];
  });
}
