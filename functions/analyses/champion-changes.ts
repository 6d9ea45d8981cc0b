import { z } from '@hono/zod-openapi';
import { sql } from 'drizzle-orm';
import { queryRows } from '../../platform/db/port.js';
import { interactionInScope } from '../search/index.js';
import { AnalysisPeriodSchema, defineAnalysis, type AnalysisOutput } from './analysis.js';
import { periodWords } from './analysis-words.js';
import { buyerQuotes, CHAMPION_LEFT_SIGNAL, quoteBlock } from './buyer-quotes.js';
import {
  DealFilterFields,
  dealFilterSql,
  dealFilterWords,
  dealsWithAccounts,
  inPeriod,
  ownerMatch,
  project,
} from './deal-scope.js';

/**
 * Champion changes: where a deal's champion left or changed, from three records. The qualification
 * history (`deal_qualification`, criterion champion): each assessment whose status differs from the
 * deal's previous one is a change — `left` when its notes say the champion left, else `weakened` or
 * `strengthened` by the status's rank. The CRM's contacts marked champion with a date they left. And
 * what buyers said: their sentences naming a champion leaving. For each, what happened after: the
 * deal's stage and outcome now, the next assessment, the conversations since.
 */

const ChampionChangesBodySchema = z
  .object({
    period: AnalysisPeriodSchema.optional(),
    ...DealFilterFields,
    changes: z
      .array(z.enum(['left', 'weakened', 'strengthened']))
      .min(1)
      .max(3)
      .default(['left', 'weakened', 'strengthened']),
    limit: z.number().int().min(1).max(200).default(50),
  })
  .strict()
  .openapi('ChampionChangesRequest');

/** Notes that say the champion is gone. */
const LEFT_NOTES = '(\\mleft\\M|leaving|departed|moved on|new role|no longer)';
/** Quotes of buyers naming a champion leaving, at most. */
const QUOTES_SHOWN = 8;
/**
 * Champion contacts who left, and their accounts' deals since, read at most: every one of them in any
 * workspace's CRM, as few are marked champion and fewer leave. The change table's `limit` does not
 * bound them — a question about who left is answered by these rows, however many changes there are.
 */
const DEPARTURES_READ = 200;
/** Departures the summary names one by one. */
const DEPARTURES_NAMED = 8;

/** What a change shows: the deal, the change, and what happened after. */
const CHANGE_COLUMNS = [
  'deal_name',
  'account_name',
  'changed_at',
  'from_status',
  'to_status',
  'change',
  'notes',
  'stage_now',
  'outcome',
  'close_date',
  'conversations_after',
  'last_conversation',
];

interface ChangeRow extends Record<string, unknown> {
  deal_name: string;
  account_name: string | null;
  owner_email: string | null;
  changed_at: string;
  from_status: string;
  to_status: string;
  change: 'left' | 'weakened' | 'strengthened';
  notes: string | null;
  assessed_by: string | null;
  stage_now: string;
  outcome: 'won' | 'lost' | 'open';
  close_date: string | null;
  amount: number | null;
  next_status: string | null;
  conversations_after: number;
  last_conversation: string | null;
}

interface DepartureRow extends Record<string, unknown> {
  contact: string;
  title: string | null;
  account_name: string;
  left_at: string;
  deals_open_then: number;
  won_after: number;
  lost_after: number;
  conversations_after: number;
}

interface DealSinceRow extends Record<string, unknown> {
  contact: string;
  deal_name: string;
  outcome: 'won' | 'lost' | 'open';
  close_date: string | null;
}

export const championChanges = defineAnalysis({
  name: 'champion_changes',
  path: 'champion-changes',
  summary: 'Champion changes: champions who left or changed, on which deals, and what happened after',
  description:
    'Champion status changes per deal (left, weakened, strengthened), champion contacts who left, and buyers’ sentences about it; with each deal’s outcome and conversations since.',
  body: ChampionChangesBodySchema,
  example: { period: { from: '2026-01-01', to: '2027-01-01' }, changes: ['left', 'weakened'] },
  async run(ctx, input, cite): Promise<AnalysisOutput> {
    const workspaceId = ctx.caller.workspaceId;
    const wanted = sql.join(
      input.changes.map((c) => sql`${c}`),
      sql`, `,
    );
    // Every change is read, so the counts are of all of them; the table shows the first `limit`.
    const all = await queryRows<ChangeRow>(
      ctx.services.db,
      sql`with champ as (
        select q.id, q.deal_id, q.status, q.notes, q.assessed_by, q.occurred_at,
               lag(q.status) over w as from_status, lead(q.status) over w as next_status
        from deal_qualification q
        where q.workspace_id = ${workspaceId} and q.criterion = 'champion'
        window w as (partition by q.deal_id order by q.occurred_at, q.id)),
      ranked as (
        select c.*, case
            when c.notes ~* ${LEFT_NOTES} then 'left'
            when ${rank(sql`c.status`)} < ${rank(sql`c.from_status`)} then 'weakened'
            else 'strengthened' end as change
        from champ c where c.from_status is not null and c.from_status <> c.status)
      select d.name as deal_name, a.name as account_name, d.owner_email,
             to_char(c.occurred_at at time zone 'UTC', 'YYYY-MM-DD') as changed_at,
             c.from_status, c.status as to_status, c.change, c.notes, c.assessed_by,
             d.stage as stage_now,
             case when d.is_won then 'won' when d.is_closed then 'lost' else 'open' end as outcome,
             to_char(d.close_date, 'YYYY-MM-DD') as close_date, d.amount::float8 as amount, c.next_status,
             (select count(*)::int from interactions i where i.workspace_id = ${workspaceId} and i.deal_id = d.id
                and i.occurred_at > c.occurred_at and ${interactionInScope(workspaceId, sql`i.id`)}) as conversations_after,
             (select to_char(max(i.occurred_at) at time zone 'UTC', 'YYYY-MM-DD') from interactions i
               where i.workspace_id = ${workspaceId} and i.deal_id = d.id and i.occurred_at > c.occurred_at
                 and ${interactionInScope(workspaceId, sql`i.id`)}) as last_conversation
      from ranked c join ${dealsWithAccounts(workspaceId)} on d.id = c.deal_id and d.workspace_id = ${workspaceId}
      where c.change in (${wanted}) and ${dealFilterSql(input)} and ${inPeriod(sql`c.occurred_at`, input.period)}
      order by case c.change when 'left' then 0 when 'weakened' then 1 else 2 end, c.occurred_at desc, d.name`,
    );
    const changes = all.slice(0, input.limit);
    const departures = input.changes.includes('left')
      ? await queryRows<DepartureRow>(
          ctx.services.db,
          sql`select c.name as contact, c.title, a.name as account_name,
                 to_char(c.left_at at time zone 'UTC', 'YYYY-MM-DD') as left_at,
                 (select count(*)::int from deals d where d.workspace_id = ${workspaceId} and d.account_id = a.id
                    and d.occurred_at <= c.left_at and (not d.is_closed or d.close_date >= (c.left_at at time zone 'UTC')::date)) as deals_open_then,
                 (select count(*)::int from deals d where d.workspace_id = ${workspaceId} and d.account_id = a.id
                    and d.is_won and d.close_date >= (c.left_at at time zone 'UTC')::date) as won_after,
                 (select count(*)::int from deals d where d.workspace_id = ${workspaceId} and d.account_id = a.id
                    and d.is_closed and not d.is_won and d.close_date >= (c.left_at at time zone 'UTC')::date) as lost_after,
                 (select count(*)::int from interactions i where i.workspace_id = ${workspaceId} and i.account_id = a.id
                    and i.occurred_at > c.left_at and ${interactionInScope(workspaceId, sql`i.id`)}) as conversations_after
          from contacts c join accounts a on a.id = c.account_id and a.workspace_id = ${workspaceId}
          where c.workspace_id = ${workspaceId} and c.is_champion and c.left_at is not null
            and ${accountFilters(input)} and ${inPeriod(sql`c.left_at`, input.period)}
          order by c.left_at desc, a.name, c.name
          limit ${DEPARTURES_READ}`,
        )
      : [];
    // What each account did next, deal by deal: those still open when the champion left, and those opened since.
    const dealsSince = departures.length
      ? await queryRows<DealSinceRow>(
          ctx.services.db,
          // Few columns: these rows must fit the transcript beside the departures (when each left is there).
          sql`select c.name as contact, d.name as deal_name,
                 case when d.is_won then 'won' when d.is_closed then 'lost' else 'open' end as outcome,
                 to_char(d.close_date, 'YYYY-MM-DD') as close_date
          from contacts c join accounts a on a.id = c.account_id and a.workspace_id = ${workspaceId}
            join deals d on d.workspace_id = ${workspaceId} and d.account_id = a.id
              and (not d.is_closed or d.close_date >= (c.left_at at time zone 'UTC')::date)
          where c.workspace_id = ${workspaceId} and c.is_champion and c.left_at is not null
            and ${accountFilters(input)} and ${inPeriod(sql`c.left_at`, input.period)}
          order by c.left_at desc, a.name, c.name, case when d.is_closed then 0 else 1 end, d.close_date, d.name
          limit ${DEPARTURES_READ}`,
        )
      : [];
    // The newest QUOTES_SHOWN sentences, by design: nothing here counts over every quote, so how far back
    // the read went is not part of the reading (renewal risk, which counts them per deal, says it).
    const quotes = input.changes.includes('left')
      ? await buyerQuotes(
          ctx.services.db,
          workspaceId,
          filtered(input)
            ? sql`${inPeriod(sql`i.occurred_at`, input.period)} and (
                exists (select 1 from ${dealsWithAccounts(workspaceId)} where d.workspace_id = ${workspaceId}
                  and (d.id = i.deal_id or d.account_id = i.account_id) and ${dealFilterSql(input)})
                or exists (select 1 from accounts a where a.workspace_id = ${workspaceId} and a.id = i.account_id
                  and ${accountFilters(input)}))`
            : inPeriod(sql`i.occurred_at`, input.period),
          CHAMPION_LEFT_SIGNAL,
          QUOTES_SHOWN,
        ).then((read) => read.quotes)
      : [];
    const count = (c: ChangeRow['change']) => all.filter((r) => r.change === c).length;
    const totals = [
      {
        changes: all.length,
        deals: new Set(all.map((r) => r.deal_name)).size,
        left: count('left'),
        weakened: count('weakened'),
        strengthened: count('strengthened'),
        contacts_left: departures.length,
        accounts_quoted: new Set(quotes.map((q) => q.account_name)).size,
      },
    ];
    const scope = `champion changes${dealFilterWords(input)}${periodWords(input.period)}`;
    const readAs = `${scope} (${input.changes.join(', ')}), from the deals' champion assessments, the CRM contacts marked champion who left, and what buyers said; with each deal's stage and outcome since`;
    if (all.length === 0 && departures.length === 0 && quotes.length === 0)
      return {
        analysis: 'champion_changes',
        read_as: readAs,
        summary: [],
        blocks: [],
        results: { changes: [], departures: [], deals_since: [], totals: [] },
        empty_reason: `No ${scope}: no champion assessment changed status, no contact marked champion left, and no buyer said their champion was leaving.`,
      };
    const t = totals[0]!;
    const summary = [
      `${t.changes} champion ${t.changes === 1 ? 'change' : 'changes'} on ${t.deals} ${t.deals === 1 ? 'deal' : 'deals'}: ${t.left} left, ${t.weakened} weakened, ${t.strengthened} strengthened${t.contacts_left ? `; ${t.contacts_left} ${t.contacts_left === 1 ? 'contact' : 'contacts'} marked champion left` : ''}${t.accounts_quoted ? `; buyers said their champion was leaving on ${t.accounts_quoted} ${t.accounts_quoted === 1 ? 'account' : 'accounts'}` : ''}.`,
      ...changes
        .slice(0, 3)
        .map(
          (r) =>
            `${r.deal_name}: champion ${r.from_status.replace('_', ' ')} → ${r.to_status.replace('_', ' ')} on ${r.changed_at}${r.notes ? ` (${r.notes.replace(/[.\s]+$/, '')})` : ''}; since then ${outcomeWords(r)}.`,
        ),
    ];
    summary.push(...departureWords(departures, dealsSince));
    const shownChanges = project(changes, CHANGE_COLUMNS);
    const blocks: AnalysisOutput['blocks'] = [
      {
        kind: 'table',
        title: 'Counts',
        columns: [
          { key: 'changes', label: 'Changes' },
          { key: 'deals', label: 'Deals' },
          { key: 'left', label: 'Left' },
          { key: 'weakened', label: 'Weakened' },
          { key: 'strengthened', label: 'Strengthened' },
          { key: 'contacts_left', label: 'Champion contacts who left' },
          { key: 'accounts_quoted', label: 'Accounts where buyers said so' },
        ],
        data: totals,
        query: cite('totals') as unknown as Record<string, unknown>,
      },
      {
        kind: 'table',
        title: 'Champion changes and what happened after',
        columns: [
          { key: 'deal_name', label: 'Deal' },
          { key: 'account_name', label: 'Account' },
          { key: 'changed_at', label: 'Changed' },
          { key: 'from_status', label: 'From' },
          { key: 'to_status', label: 'To' },
          { key: 'change', label: 'Change' },
          { key: 'notes', label: 'Notes' },
          { key: 'stage_now', label: 'Stage now' },
          { key: 'outcome', label: 'Outcome' },
          { key: 'close_date', label: 'Closes / closed' },
          { key: 'conversations_after', label: 'Conversations since' },
          { key: 'last_conversation', label: 'Last conversation' },
        ],
        data: shownChanges,
        query: cite('changes') as unknown as Record<string, unknown>,
      },
    ];
    const departureBlocks: AnalysisOutput['blocks'] = [];
    if (departures.length > 0)
      departureBlocks.push({
        kind: 'table',
        title: 'Contacts marked champion who left, and their accounts since',
        columns: [
          { key: 'contact', label: 'Contact' },
          { key: 'title', label: 'Title' },
          { key: 'account_name', label: 'Account' },
          { key: 'left_at', label: 'Left' },
          { key: 'deals_open_then', label: 'Deals open then' },
          { key: 'won_after', label: 'Won since' },
          { key: 'lost_after', label: 'Lost since' },
          { key: 'conversations_after', label: 'Conversations since' },
        ],
        data: departures,
        query: cite('departures') as unknown as Record<string, unknown>,
      });
    if (dealsSince.length > 0)
      departureBlocks.push({
        kind: 'table',
        title: 'Their accounts’ deals since the champion left: won, lost, still open',
        columns: [
          { key: 'contact', label: 'Champion who left' },
          { key: 'deal_name', label: 'Deal' },
          { key: 'outcome', label: 'Outcome' },
          { key: 'close_date', label: 'Closes / closed' },
        ],
        data: dealsSince,
        query: cite('deals_since') as unknown as Record<string, unknown>,
      });
    // A result over the transcript budget loses its last blocks first: the quotes, then the deals since,
    // whose names the summary already says; the tables whose dates the summary writes stay.
    blocks.push(...departureBlocks);
    blocks.push(...quotes.map(quoteBlock));
    return {
      analysis: 'champion_changes',
      read_as: readAs,
      summary,
      blocks,
      results: { changes: shownChanges, departures, deals_since: dealsSince, totals },
      empty_reason: null,
    };
  },
});

/** A champion status's strength: at risk is below nobody identified, then identified, then validated. */
const rank = (status: ReturnType<typeof sql>) =>
  sql`(case ${status} when 'validated' then 3 when 'identified' then 2 when 'unknown' then 1 else 0 end)`;

/** The filters an account answers (its name, region, industry, owner): for contacts, who have no deal. */
function accountFilters(input: z.output<typeof ChampionChangesBodySchema>) {
  return dealFilterSql({ accounts: input.accounts, regions: input.regions, industries: input.industries }).append(
    input.owners?.length ? sql` and ${ownerMatch(sql`a.owner_email`, input.owners)}` : sql``,
  );
}

/** Whether a filter narrows the deals or accounts read. */
const filtered = (input: z.output<typeof ChampionChangesBodySchema>): boolean =>
  Boolean(input.owners?.length || input.accounts?.length || input.regions?.length || input.industries?.length);

/** The champions who left, by name, and what their accounts' deals did since: won, lost, still open. */
function departureWords(departures: readonly DepartureRow[], dealsSince: readonly DealSinceRow[]): string[] {
  if (departures.length === 0) return [];
  const named = departures
    .slice(0, DEPARTURES_NAMED)
    .map((d) => `${d.contact} (${d.account_name}, left ${d.left_at})`)
    .join('; ');
  const more =
    departures.length > DEPARTURES_NAMED ? `; ${departures.length - DEPARTURES_NAMED} more in the table` : '';
  const lines = [`Champions who left: ${named}${more}.`];
  const byOutcome = (o: DealSinceRow['outcome']) => dealsSince.filter((d) => d.outcome === o);
  // Names only: their dates are the table's, so the sentence holds no figure a cut table could leave unbacked.
  const list = (rows: DealSinceRow[]) =>
    [...new Set(rows.map((d) => d.deal_name))].slice(0, DEPARTURES_NAMED).join(', ');
  const parts = (['won', 'lost', 'open'] as const).flatMap((o) => {
    const rows = byOutcome(o);
    return rows.length ? [`${o === 'open' ? 'still open' : o}: ${list(rows)}`] : [];
  });
  if (parts.length > 0) lines.push(`Their accounts' deals since the champion left — ${parts.join('; ')}.`);
  return lines;
}

function outcomeWords(r: ChangeRow): string {
  const outcome =
    r.outcome === 'open'
      ? `the deal is open in ${r.stage_now.replace('_', ' ')}`
      : `the deal was ${r.outcome}${r.close_date ? ` (closed ${r.close_date})` : ''}`;
  const talks =
    r.conversations_after > 0
      ? `, ${r.conversations_after} ${r.conversations_after === 1 ? 'conversation' : 'conversations'} on it (last ${r.last_conversation})`
      : ', no conversation on it';
  return `${outcome}${talks}`;
}
