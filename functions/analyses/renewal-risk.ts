import { z } from '@hono/zod-openapi';
import { sql } from 'drizzle-orm';
import { queryRows } from '../../platform/db/port.js';
import type { OperationContext } from '../registry.js';
import { interactionInScope } from '../search/index.js';
import { AnalysisPeriodSchema, defineAnalysis, type AnalysisOutput } from './analysis.js';
import { periodWords } from './analysis-words.js';
import {
  buyerQuotes,
  CHAMPION_LEFT_SIGNAL,
  quoteBlock,
  quotesBoundWords,
  RISK_SIGNAL,
  type BuyerQuote,
} from './buyer-quotes.js';
import {
  AsOfDay,
  asOfDay,
  DealFilterFields,
  dealFilterSql,
  dealFilterWords,
  dealsWithAccounts,
  inPeriod,
  money,
} from './deal-scope.js';

/**
 * Renewal risk: the open renewal deals (the CRM names a renewal as such: "Acme Logistics - Renewal
 * 2026") and which of them look at risk, each with why — the latest champion and economic-buyer
 * assessments (`deal_qualification`) when they are at risk or nobody is identified, no conversation
 * with the account in `quiet_days`, and what the buyers said: their sentences carrying a risk word or a
 * champion leaving, in the year before `as_of`, quoted verbatim with who said them.
 */

const RenewalRiskBodySchema = z
  .object({
    period: AnalysisPeriodSchema.optional().openapi({
      description: 'When the renewals close; absent: every open one.',
    }),
    ...DealFilterFields,
    quiet_days: z.number().int().min(1).max(365).default(30),
    as_of: AsOfDay,
    limit: z.number().int().min(1).max(100).default(50),
  })
  .strict()
  .openapi('RenewalRiskRequest');

/** How a renewal is marked in the CRM: its deal name says so. */
const RENEWAL_NAME = '\\mrenewals?\\M';
/** What buyers said counts for this many days before `as_of`. */
const QUOTE_DAYS = 365;
/** Quotes shown per renewal, and in all. */
const QUOTES_PER_DEAL = 1;
const QUOTES_SHOWN = 5;

/** A renewal as read, before its risk is judged. */
interface RenewalFacts {
  deal_name: string;
  account_name: string | null;
  owner_email: string | null;
  stage: string;
  close_date: string | null;
  amount: number | null;
  champion: string | null;
  champion_notes: string | null;
  economic_buyer: string | null;
  economic_buyer_notes: string | null;
  last_touch: string | null;
  days_since_touch: number | null;
}

/** A renewal as shown: its facts (the notes are read into `why`), its risk and why. */
interface RenewalRow extends Omit<RenewalFacts, 'champion_notes' | 'economic_buyer_notes'>, Record<string, unknown> {
  risk_quotes: number;
  at_risk: boolean;
  why: string;
}

interface Base extends RenewalFacts, Record<string, unknown> {
  deal_id: string;
}

export const renewalRisk = defineAnalysis({
  name: 'renewal_risk',
  path: 'renewal-risk',
  summary: 'Renewal risk: open renewals, which look at risk and why',
  description:
    'Open renewals (deals named as renewals) and why each looks at risk: champion or economic buyer at risk or unidentified, no conversation in `quiet_days`, buyers’ risk sentences quoted. Amounts open and at risk.',
  body: RenewalRiskBodySchema,
  example: { period: { from: '2026-11-01', to: '2027-02-01' }, quiet_days: 30 },
  async run(ctx, input, cite): Promise<AnalysisOutput> {
    const workspaceId = ctx.caller.workspaceId;
    const asOf = asOfDay(input.as_of, ctx.services.clock.now());
    const citeAs = (result: string) => ({ ...cite(result), input: { ...input, as_of: asOf } });
    const base = await queryRows<Base>(
      ctx.services.db,
      sql`with renewals as (
        select d.id, d.name, a.name as account_name, d.account_id, d.owner_email, d.stage, d.close_date, d.amount
        from ${dealsWithAccounts(workspaceId)}
        where d.workspace_id = ${workspaceId} and not d.is_closed and d.name ~* ${RENEWAL_NAME}
          and ${dealFilterSql(input)} and ${inPeriod(sql`d.close_date`, input.period)}),
      latest as (
        select distinct on (q.deal_id, q.criterion) q.deal_id, q.criterion, q.status, q.notes
        from deal_qualification q
        where q.workspace_id = ${workspaceId} and q.deal_id in (select id from renewals)
          and q.criterion in ('champion', 'economic_buyer') and q.occurred_at < ${asOf}::date + 1
        order by q.deal_id, q.criterion, q.occurred_at desc, q.id),
      touch as (
        select r.id, max(i.occurred_at) as last
        from renewals r join interactions i on i.workspace_id = ${workspaceId}
          and (i.account_id = r.account_id or i.deal_id = r.id) and i.occurred_at < ${asOf}::date + 1
          and ${interactionInScope(workspaceId, sql`i.id`)}
        group by r.id)
      select r.id as deal_id, r.name as deal_name, r.account_name, r.owner_email, r.stage,
             to_char(r.close_date, 'YYYY-MM-DD') as close_date, r.amount::float8 as amount,
             c.status as champion, c.notes as champion_notes, e.status as economic_buyer, e.notes as economic_buyer_notes,
             to_char(t.last at time zone 'UTC', 'YYYY-MM-DD') as last_touch,
             (${asOf}::date - (t.last at time zone 'UTC')::date)::int as days_since_touch
      from renewals r
      left join latest c on c.deal_id = r.id and c.criterion = 'champion'
      left join latest e on e.deal_id = r.id and e.criterion = 'economic_buyer'
      left join touch t on t.id = r.id
      order by r.close_date nulls last, r.name`,
    );
    const scope = `open renewal deals${dealFilterWords(input)}${input.period ? `, closing${periodWords(input.period)}` : ''}`;
    const readAs = `${scope}: at risk when a champion or economic buyer is at risk or unidentified, with no conversation in ${input.quiet_days} days, or when buyers said so (as of ${asOf})`;
    if (base.length === 0)
      return {
        analysis: 'renewal_risk',
        read_as: readAs,
        summary: [],
        blocks: [],
        results: { renewals: [], totals: [] },
        empty_reason: `No ${scope}: no deal the CRM names as a renewal is open${dealFilterWords(input) || input.period ? ' with those filters' : ''}.`,
      };

    const { quotes, readBackTo } = await riskQuotes(ctx, base, asOf);
    const rows = base
      .map(({ deal_id, ...facts }) => {
        const r = facts as RenewalFacts;
        const said = quotes.filter((q) => q.deal_id === deal_id);
        const why = reasonsOf(r, said.length, input.quiet_days);
        const { champion_notes: _c, economic_buyer_notes: _e, ...shown } = r;
        const row: RenewalRow = { ...shown, risk_quotes: said.length, at_risk: why.length > 0, why: why.join('; ') };
        return { row, said };
      })
      .sort(
        (x, y) =>
          Number(y.row.at_risk) - Number(x.row.at_risk) ||
          (y.row.amount ?? -1) - (x.row.amount ?? -1) ||
          x.row.deal_name.localeCompare(y.row.deal_name),
      );
    // The amounts are of every renewal read; the table shows the first `limit`.
    const every: RenewalRow[] = rows.map((r) => r.row);
    const renewals = every.slice(0, input.limit);
    const atRisk = every.filter((r) => r.at_risk);
    const sum = (rs: RenewalRow[]) => Math.round(rs.reduce((s, r) => s + (r.amount ?? 0), 0) * 100) / 100;
    const totals = [
      {
        open_renewals: every.length,
        open_amount: sum(every),
        at_risk_renewals: atRisk.length,
        at_risk_amount: sum(atRisk),
      },
    ];
    const shown = rows
      .slice(0, input.limit)
      .filter((r) => r.row.at_risk)
      .flatMap((r) => r.said.slice(0, QUOTES_PER_DEAL))
      .slice(0, QUOTES_SHOWN);
    const summary = [
      `${atRisk.length} of the ${every.length} ${scope} look at risk, worth ${money(totals[0]!.at_risk_amount)} of the ${money(totals[0]!.open_amount)} open.`,
      ...atRisk
        .slice(0, 3)
        .map(
          (r) =>
            `${r.deal_name} (${money(r.amount)}${r.close_date ? `, closes ${r.close_date}` : ''}${r.owner_email ? `, ${r.owner_email}` : ''}): ${r.why}.`,
        ),
    ];
    return {
      analysis: 'renewal_risk',
      read_as: readAs + quotesBoundWords(readBackTo),
      summary,
      blocks: [
        {
          kind: 'table',
          title: 'Amounts open and at risk',
          columns: [
            { key: 'open_renewals', label: 'Open renewals' },
            { key: 'open_amount', label: 'Open amount' },
            { key: 'at_risk_renewals', label: 'At risk' },
            { key: 'at_risk_amount', label: 'Amount at risk' },
          ],
          data: totals,
          query: citeAs('totals') as unknown as Record<string, unknown>,
        },
        {
          kind: 'table',
          title: 'Open renewals, at risk first',
          columns: [
            { key: 'deal_name', label: 'Renewal' },
            { key: 'account_name', label: 'Account' },
            { key: 'owner_email', label: 'Owner' },
            { key: 'stage', label: 'Stage' },
            { key: 'close_date', label: 'Closes' },
            { key: 'amount', label: 'Amount' },
            { key: 'champion', label: 'Champion' },
            { key: 'economic_buyer', label: 'Economic buyer' },
            { key: 'last_touch', label: 'Last conversation' },
            { key: 'days_since_touch', label: 'Days since' },
            { key: 'risk_quotes', label: 'Risk quotes' },
            { key: 'why', label: 'Why at risk' },
          ],
          data: renewals,
          query: citeAs('renewals') as unknown as Record<string, unknown>,
        },
        ...shown.map(quoteBlock),
      ],
      results: { renewals, totals },
      empty_reason: null,
    };
  },
});

/** Why a renewal looks at risk, in words whose figures are its own cells. */
function reasonsOf(r: RenewalFacts, quotes: number, quietDays: number): string[] {
  const out: string[] = [];
  const criterion = (label: string, status: string | null, notes: string | null) => {
    const noted = notes ? ` (${notes.replace(/[.\s]+$/, '')})` : '';
    if (status === 'at_risk') out.push(`${label} at risk${noted}`);
    else if (status === 'unknown') out.push(`no ${label} identified`);
    else if (status === null) out.push(`no ${label} assessed`);
  };
  criterion('champion', r.champion, r.champion_notes);
  criterion('economic buyer', r.economic_buyer, r.economic_buyer_notes);
  if (r.days_since_touch === null) out.push('no conversation with the account on record');
  else if (r.days_since_touch >= quietDays) out.push(`no conversation in ${r.days_since_touch} days`);
  if (quotes > 0) out.push(`buyers said so in ${quotes} ${quotes === 1 ? 'sentence' : 'sentences'} (quoted)`);
  return out;
}

/** The buyers' risk sentences on the renewals' accounts (or deals) in the year before `as_of`, each tied to its renewal. */
async function riskQuotes(
  ctx: OperationContext,
  renewals: readonly Base[],
  asOf: string,
): Promise<{ quotes: (BuyerQuote & { deal_id: string })[]; readBackTo: string | null }> {
  const workspaceId = ctx.caller.workspaceId;
  const ids = sql.join(
    renewals.map((r) => sql`${r.deal_id}::uuid`),
    sql`, `,
  );
  const where = sql`i.occurred_at >= ${asOf}::date - ${QUOTE_DAYS}::int and i.occurred_at < ${asOf}::date + 1
    and (i.deal_id in (${ids}) or i.account_id in (select account_id from deals where workspace_id = ${workspaceId} and id in (${ids})))`;
  const risk = await buyerQuotes(ctx.services.db, workspaceId, where, RISK_SIGNAL, 200);
  const left = await buyerQuotes(ctx.services.db, workspaceId, where, CHAMPION_LEFT_SIGNAL, 200);
  const said = [...risk.quotes, ...left.quotes];
  // The later of the two days read back to: the quotes are complete from it on.
  const readBackTo =
    [risk.readBackTo, left.readBackTo]
      .filter((d) => d !== null)
      .sort()
      .at(-1) ?? null;
  const seen = new Set<string>();
  const out: (BuyerQuote & { deal_id: string })[] = [];
  for (const q of said.sort((a, b) => b.occurred_at.localeCompare(a.occurred_at))) {
    const key = `${q.interaction_id}:${q.turn_id}`;
    // One sentence per turn, tied to the renewal it names or the one on its account.
    const renewal =
      renewals.find((r) => r.deal_name === q.deal_name) ?? renewals.find((r) => r.account_name === q.account_name);
    if (!renewal || seen.has(key)) continue;
    seen.add(key);
    out.push({ ...q, deal_id: renewal.deal_id });
  }
  return { quotes: out, readBackTo };
}
