import { z } from '@hono/zod-openapi';
import { sql, type SQL } from 'drizzle-orm';
import { queryRows } from '../../platform/db/port.js';
import type { OperationContext } from '../registry.js';
import { interactionInScope } from '../search/index.js';
import { AnalysisPeriodSchema, defineAnalysis, type AnalysisOutput } from './analysis.js';
import { periodWords } from './analysis-words.js';
import { inPeriod, money } from './deal-scope.js';

/**
 * An account's whole history, in order: its first and last conversation, its conversations by kind
 * and by month, its deals (opened, won, lost, open, with amounts and dates), the status changes of its
 * deals' qualification, and one timeline of all of it. One account, named exactly (case aside): a
 * name the workspace does not hold is said to be unknown, with the names that come close, and no
 * other account's facts.
 */

const AccountHistoryBodySchema = z
  .object({
    account: z.string().trim().min(1).max(300).openapi({ example: 'Acme Logistics' }),
    period: AnalysisPeriodSchema.optional(),
    limit: z.number().int().min(1).max(200).default(100),
  })
  .strict()
  .openapi('AccountHistoryRequest');

interface AccountRow extends Record<string, unknown> {
  id: string;
  name: string;
  type: string | null;
  industry: string | null;
  region: string | null;
  owner_email: string | null;
  created_at: string;
}

interface OverviewRow extends Record<string, unknown> {
  first_touch: string | null;
  last_touch: string | null;
  conversations: number;
  calls: number;
  meetings: number;
  emails: number;
  deals_opened: number;
  deals_won: number;
  won_amount: number;
  deals_lost: number;
  lost_amount: number;
  deals_open: number;
  open_amount: number;
}

export const accountHistory = defineAnalysis({
  name: 'account_history',
  path: 'account-history',
  summary: "Account history: an account's conversations, deals and qualification changes, in order",
  description:
    'One account’s conversations (first, last, by kind and month), deals and qualification changes, in order. An unknown name answers `empty_reason`, never another account’s facts.',
  body: AccountHistoryBodySchema,
  example: { account: 'Acme Logistics', limit: 50 },
  async run(ctx, input, cite): Promise<AnalysisOutput> {
    const workspaceId = ctx.caller.workspaceId;
    const db = ctx.services.db;
    const readAs = `the history of ${input.account}${periodWords(input.period)}: conversations, deals and qualification changes, in order`;
    const [account] = await queryRows<AccountRow>(
      db,
      sql`select id, name, type, industry, region, owner_email, to_char(created_at at time zone 'UTC', 'YYYY-MM-DD') as created_at
          from accounts where workspace_id = ${workspaceId} and lower(name) = ${input.account.toLowerCase()}
          order by name, id limit 1`,
    );
    const empty = { account: [], overview: [], by_month: [], deals: [], qualification_changes: [], timeline: [] };
    if (!account) {
      const near = await nearNames(ctx, input.account);
      return {
        analysis: 'account_history',
        read_as: readAs,
        summary: [],
        blocks: [],
        results: empty,
        empty_reason: `No account named "${input.account}" in this workspace${near.length ? ` (accounts with a similar name: ${near.join(', ')})` : ''}.`,
      };
    }
    const acc = account.id;
    const readAsFound = `the history of ${account.name}${periodWords(input.period)}: conversations, deals and qualification changes, in order`;
    const conversations = sql`i.workspace_id = ${workspaceId} and i.account_id = ${acc}::uuid
      and ${interactionInScope(workspaceId, sql`i.id`)} and ${inPeriod(sql`i.occurred_at`, input.period)}`;
    const onAccount = sql`d.workspace_id = ${workspaceId} and d.account_id = ${acc}::uuid`;
    const closedIn = sql`d.is_closed and ${inPeriod(sql`d.close_date`, input.period)}`;
    const [overview] = await queryRows<OverviewRow>(
      db,
      sql`select
          (select to_char(min(i.occurred_at) at time zone 'UTC', 'YYYY-MM-DD') from interactions i where ${conversations}) as first_touch,
          (select to_char(max(i.occurred_at) at time zone 'UTC', 'YYYY-MM-DD') from interactions i where ${conversations}) as last_touch,
          (select count(*)::int from interactions i where ${conversations}) as conversations,
          (select count(*)::int from interactions i where ${conversations} and i.kind = 'call') as calls,
          (select count(*)::int from interactions i where ${conversations} and i.kind = 'meeting') as meetings,
          (select count(*)::int from interactions i where ${conversations} and i.kind = 'email') as emails,
          (select count(*)::int from deals d where ${onAccount} and ${inPeriod(sql`d.occurred_at`, input.period)}) as deals_opened,
          (select count(*)::int from deals d where ${onAccount} and ${closedIn} and d.is_won) as deals_won,
          (select coalesce(sum(d.amount), 0)::float8 from deals d where ${onAccount} and ${closedIn} and d.is_won) as won_amount,
          (select count(*)::int from deals d where ${onAccount} and ${closedIn} and not d.is_won) as deals_lost,
          (select coalesce(sum(d.amount), 0)::float8 from deals d where ${onAccount} and ${closedIn} and not d.is_won) as lost_amount,
          (select count(*)::int from deals d where ${onAccount} and not d.is_closed) as deals_open,
          (select coalesce(sum(d.amount), 0)::float8 from deals d where ${onAccount} and not d.is_closed) as open_amount`,
    );
    const byMonth = await queryRows(
      db,
      sql`select to_char(date_trunc('month', i.occurred_at at time zone 'UTC'), 'YYYY-MM') as month,
            count(*) filter (where i.kind = 'call')::int as calls, count(*) filter (where i.kind = 'meeting')::int as meetings,
            count(*) filter (where i.kind = 'email')::int as emails, count(*)::int as conversations
          from interactions i where ${conversations} group by 1 order by 1`,
    );
    const deals = await queryRows(
      db,
      sql`select d.name as deal_name, d.stage, d.amount::float8 as amount,
            to_char(d.occurred_at at time zone 'UTC', 'YYYY-MM-DD') as opened, to_char(d.close_date, 'YYYY-MM-DD') as close_date,
            case when d.is_won then 'won' when d.is_closed then 'lost' else 'open' end as outcome, d.owner_email
          from deals d where ${onAccount}
            and (${inPeriod(sql`d.occurred_at`, input.period)} or ${closedIn} or not d.is_closed)
          order by d.occurred_at, d.name`,
    );
    const changes = await queryRows(
      db,
      sql`select to_char(c.occurred_at at time zone 'UTC', 'YYYY-MM-DD') as changed_at, d.name as deal_name, c.criterion,
            c.from_status, c.status as to_status, c.notes
          from (select q.*, lag(q.status) over (partition by q.deal_id, q.criterion order by q.occurred_at, q.id) as from_status
                from deal_qualification q where q.workspace_id = ${workspaceId}) c
          join deals d on d.id = c.deal_id and ${onAccount}
          where c.from_status is not null and c.from_status <> c.status and ${inPeriod(sql`c.occurred_at`, input.period)}
          order by c.occurred_at, d.name, c.criterion`,
    );
    const timeline = await queryRows(db, timelineSql(workspaceId, acc, conversations, input));
    const lastChange = changes.at(-1);
    // What the summary says is all in this one row, so it stays backed whichever other tables an answer keeps.
    const o = {
      ...overview!,
      qualification_changes: changes.length,
      last_change: lastChange
        ? `${String(lastChange.changed_at)}: ${String(lastChange.criterion).replace('_', ' ')} ${String(lastChange.from_status).replace('_', ' ')} → ${String(lastChange.to_status).replace('_', ' ')} on ${String(lastChange.deal_name)}`
        : null,
    };
    const results = {
      account: [account].map(({ id: _id, ...a }) => a),
      overview: [o],
      by_month: byMonth,
      deals,
      qualification_changes: changes,
      timeline,
    };
    if (o.conversations === 0 && deals.length === 0 && changes.length === 0)
      return {
        analysis: 'account_history',
        read_as: readAsFound,
        summary: [],
        blocks: [],
        results,
        empty_reason: `${account.name} has no conversation, deal or qualification change on record${periodWords(input.period)}.`,
      };
    const facts = [account.type, account.industry, account.region].filter(Boolean).join(', ');
    const summary = [
      o.conversations > 0
        ? `${account.name}${facts ? ` (${facts})` : ''}: first conversation ${o.first_touch}, last ${o.last_touch}; ${o.conversations} conversations (${o.calls} calls, ${o.meetings} meetings, ${o.emails} emails)${periodWords(input.period)}.`
        : `${account.name}${facts ? ` (${facts})` : ''}: no conversation on record${periodWords(input.period)}.`,
      `Deals: ${o.deals_opened} opened, ${o.deals_won} won (${money(o.won_amount)}), ${o.deals_lost} lost (${money(o.lost_amount)}), ${o.deals_open} open now (${money(o.open_amount)}).`,
    ];
    if (o.last_change)
      summary.push(
        `${o.qualification_changes} qualification status ${o.qualification_changes === 1 ? 'change' : 'changes'}; the latest ${o.last_change}.`,
      );
    const table = (title: string, result: keyof typeof results, columns: [string, string][]) => ({
      kind: 'table' as const,
      title,
      columns: columns.map(([key, label]) => ({ key, label })),
      data: results[result],
      query: cite(result) as unknown as Record<string, unknown>,
    });
    const blocks: AnalysisOutput['blocks'] = [
      table('At a glance', 'overview', [
        ['first_touch', 'First conversation'],
        ['last_touch', 'Last conversation'],
        ['conversations', 'Conversations'],
        ['calls', 'Calls'],
        ['meetings', 'Meetings'],
        ['emails', 'Emails'],
        ['deals_opened', 'Deals opened'],
        ['deals_won', 'Won'],
        ['won_amount', 'Won amount'],
        ['deals_lost', 'Lost'],
        ['lost_amount', 'Lost amount'],
        ['deals_open', 'Open now'],
        ['open_amount', 'Open amount'],
        ['qualification_changes', 'Qualification changes'],
        ['last_change', 'Latest change'],
      ]),
    ];
    if (deals.length > 0)
      blocks.push(
        table('Deals', 'deals', [
          ['deal_name', 'Deal'],
          ['stage', 'Stage'],
          ['outcome', 'Outcome'],
          ['amount', 'Amount'],
          ['opened', 'Opened'],
          ['close_date', 'Closes / closed'],
          ['owner_email', 'Owner'],
        ]),
      );
    if (changes.length > 0)
      blocks.push(
        table('Qualification changes', 'qualification_changes', [
          ['changed_at', 'When'],
          ['deal_name', 'Deal'],
          ['criterion', 'Criterion'],
          ['from_status', 'From'],
          ['to_status', 'To'],
          ['notes', 'Notes'],
        ]),
      );
    if (byMonth.length > 0)
      blocks.push(
        table('Conversations by month', 'by_month', [
          ['month', 'Month'],
          ['calls', 'Calls'],
          ['meetings', 'Meetings'],
          ['emails', 'Emails'],
          ['conversations', 'All'],
        ]),
      );
    if (timeline.length > 0)
      blocks.push(
        table('Timeline', 'timeline', [
          ['at', 'When'],
          ['event', 'What'],
          ['detail', 'Detail'],
        ]),
      );
    return { analysis: 'account_history', read_as: readAsFound, summary, blocks, results, empty_reason: null };
  },
});

/** Every event of the account in order: conversations, deals opened and closed, qualification changes (the latest `limit`). */
function timelineSql(
  workspaceId: string,
  acc: string,
  conversations: SQL,
  input: z.output<typeof AccountHistoryBodySchema>,
): SQL {
  const onAccount = sql`d.workspace_id = ${workspaceId} and d.account_id = ${acc}::uuid`;
  return sql`select to_char(e.at at time zone 'UTC', 'YYYY-MM-DD') as at, e.event, e.detail from (
      select i.occurred_at as at, i.kind as event, i.title as detail, i.id::text as k from interactions i where ${conversations}
      union all
      select d.occurred_at, 'deal opened', d.name, d.id::text || 'o' from deals d
        where ${onAccount} and ${inPeriod(sql`d.occurred_at`, input.period)}
      union all
      select d.close_date::timestamptz, case when d.is_won then 'deal won' else 'deal lost' end, d.name, d.id::text || 'c' from deals d
        where ${onAccount} and d.is_closed and d.close_date is not null and ${inPeriod(sql`d.close_date`, input.period)}
      union all
      select c.occurred_at, c.criterion || ' ' || replace(c.from_status, '_', ' ') || ' → ' || replace(c.status, '_', ' '), d.name, c.id::text
        from (select q.*, lag(q.status) over (partition by q.deal_id, q.criterion order by q.occurred_at, q.id) as from_status
              from deal_qualification q where q.workspace_id = ${workspaceId}) c
        join deals d on d.id = c.deal_id and ${onAccount}
        where c.from_status is not null and c.from_status <> c.status and ${inPeriod(sql`c.occurred_at`, input.period)}
      order by at desc, k limit ${input.limit}) e
    order by e.at, e.k`;
}

/** Names of this workspace's accounts sharing a word with the one asked (a suggestion, never their facts). */
async function nearNames(ctx: OperationContext, asked: string): Promise<string[]> {
  const words = asked
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w.length >= 3);
  if (words.length === 0) return [];
  const rows = await queryRows<{ name: string }>(
    ctx.services.db,
    sql`select name from accounts where workspace_id = ${ctx.caller.workspaceId} and (${sql.join(
      words.map((w) => sql`lower(name) like ${`%${w.replace(/[%_\\]/g, '\\$&')}%`}`),
      sql` or `,
    )}) order by name limit 5`,
  );
  return rows.map((r) => r.name);
}
