import { z } from '@hono/zod-openapi';
import type { BlockDraft } from '../agents/answer.js';
import { externalTurnsOf, money, quoteBlock, tableBlock } from '../agents/index.js';
import { FilterSchema, searchWithin } from '../search/index.js';
import type { OperationContext } from '../registry.js';
import { AnalysisPeriodSchema, defineAnalysis, type AnalysisOutput } from './analysis.js';
import { fittedToToolResult, limitedTo } from './analysis-fit.js';
import { periodWords } from './analysis-words.js';

/**
 * Losses and their reasons: the deals lost (closed, not won; in the period on their close date), the
 * risks their qualification recorded on the largest of them, and what those deals' buyers said while
 * the deals were open. The CRM keeps no loss-reason field, so these are the reasons the data holds.
 * Every figure is a cell of a `search.query` request the blocks cite.
 */

const Names = z.array(z.string().trim().min(1).max(300)).min(1).max(50).optional();

const LossesBodySchema = z
  .object({
    period: AnalysisPeriodSchema.optional().openapi({ description: 'When the deals closed; absent: every loss.' }),
    deals: Names.openapi({ description: 'Only these deals, by name (exact).' }),
    accounts: Names.openapi({ description: 'Only deals on these accounts, by name (exact); ignored with `deals`.' }),
    filters: z.array(FilterSchema).max(20).default([]).openapi({
      description: 'Further filters on the deals surface (owner, region, industry, amount): the filter lane’s.',
    }),
  })
  .strict()
  .openapi('LossesRequest');
type LossesInput = z.output<typeof LossesBodySchema>;

/** What the buyers' conversations are searched for: the reasons deals are lost. */
const VOICE_TOPIC = 'pricing budget competitor timeline decision risk';
/** The largest losses read for reasons, and the accounts whose buyers are quoted. */
const TOP_DEALS = 5;
const QUOTED_ACCOUNTS = 3;
/** Risks listed in the summary. */
const RISK_LINES = 8;

type Query = Record<string, unknown>;
type Row = Record<string, unknown>;

function queriesOf(input: LossesInput) {
  // The request's own filters first, so a search refusing one names it as the request does (`filters.0.field`).
  const filters: Query[] = [
    ...input.filters.map(({ field, op, value }) => ({ field, op, value })),
    { field: 'is_closed', op: 'eq', value: true },
    { field: 'is_won', op: 'eq', value: false },
  ];
  if (input.period)
    filters.push(
      { field: 'close_date', op: 'gte', value: input.period.from },
      { field: 'close_date', op: 'lt', value: input.period.to },
    );
  if (input.deals?.length) filters.push({ field: 'name', op: 'in', value: input.deals });
  else if (input.accounts?.length) filters.push({ field: 'account_name', op: 'in', value: input.accounts });
  return {
    totals: { surface: 'deals', filters, metrics: [{ fn: 'count' }, { fn: 'sum', field: 'amount' }] } as Query,
    list: { surface: 'deals', filters, order_by: { field: 'amount', dir: 'desc' }, limit: 50 } as Query,
    risks: (deals: string[]): Query => ({
      surface: 'deal_qualification',
      filters: [
        { field: 'deal_name', op: 'in', value: deals },
        { field: 'status', op: 'eq', value: 'at_risk' },
      ],
      order_by: { field: 'occurred_at', dir: 'desc' },
      limit: 30,
    }),
    voice: (account: string): Query => ({ query: `${account}: ${VOICE_TOPIC}`, mode: 'fuzzy', limit: 20 }),
  };
}

const day = (v: unknown): string | null => (typeof v === 'string' && v.length >= 10 ? v.slice(0, 10) : null);

/** Whether an interaction happened while the deal was open: on or after its creation, on or before its close date. */
function duringDeal(occurredAt: unknown, deal: Row | undefined): boolean {
  const at = day(occurredAt);
  const closed = day(deal?.close_date);
  if (!at || !closed) return false;
  const created = day(deal?.occurred_at);
  return at <= closed && (!created || at >= created);
}

export const losses = defineAnalysis({
  name: 'losses',
  path: 'losses',
  summary: 'Losses: the deals lost, and the reasons their qualification and buyers give',
  description:
    'The deals lost (closed, not won) in the period on their close date, with the amount lost; the risks qualification flagged on the largest; what their buyers said while those deals were open (quoted, with the turn).',
  body: LossesBodySchema,
  example: { period: { from: '2026-07-01', to: '2026-10-01' } },
  async run(ctx, input): Promise<AnalysisOutput> {
    const q = queriesOf(input);
    const totals = await searchWithin(ctx, q.totals);
    const lost = (await searchWithin(ctx, q.list)).results;
    const when = periodWords(input.period);
    const readAs = `deals lost (closed, not won)${input.period ? `, closing${when}` : ''}${input.deals?.length ? `, of ${input.deals.join(', ')}` : input.accounts?.length ? `, on ${input.accounts.join(', ')}` : ''}${input.filters.length ? `, where ${input.filters.map((f) => `${f.field} ${f.op} ${Array.isArray(f.value) ? f.value.join('/') : String(f.value)}`).join(', ')}` : ''}`;
    const row = totals.results[0];
    const count = typeof row?.count === 'number' ? row.count : null;
    if (count === null || count === 0 || lost.length === 0)
      return {
        analysis: 'losses',
        read_as: readAs,
        summary: [],
        blocks:
          count === null
            ? []
            : [{ kind: 'metric', label: `Deals lost${when}`, value: count, column: 'count', query: q.totals }],
        results: { totals: row ? [row] : [] },
        empty_reason: `I found no lost deals${when}${count === null ? ': nothing in the data matched' : ''}.`,
      };
    const top = lost.slice(0, TOP_DEALS);
    const { risks, quotes } = await reasonsOf(ctx, q, top);
    const riskQuery = q.risks(top.map((d) => String(d.name)));
    // The lost deals are cut to fit one tool result first, then the risks.
    return fittedToToolResult({ lost, risks }, ['lost', 'risks'], (kept) => {
      const blocks: BlockDraft[] = [
        { kind: 'metric', label: `Deals lost${when}`, value: count, column: 'count', query: q.totals },
        {
          kind: 'metric',
          label: `Amount lost${when}`,
          value: typeof row?.sum_amount === 'number' ? row.sum_amount : null,
          column: 'sum_amount',
          query: q.totals,
        },
      ];
      const lines = [
        `**${count}** deal${count === 1 ? ' was' : 's were'} lost${when}, **${money(row?.sum_amount) ?? 'amount unknown'}** in total. The data records no loss reason field, so the reasons below come from what their qualification flagged and what their buyers said.`,
        '',
        '### The largest losses',
      ];
      for (const d of top)
        lines.push(
          `- **${String(d.name)}** (${String(d.account_name ?? 'no account')}): ${money(d.amount) ?? 'amount unknown'}`,
        );
      blocks.push(
        tableBlock(
          `Deals lost${when}`,
          [
            ['name', 'Deal'],
            ['account_name', 'Account'],
            ['amount', 'Amount'],
            ['close_date', 'Closed'],
          ],
          kept.lost,
          limitedTo(q.list, kept.lost.length, lost.length),
        ),
      );
      if (kept.risks.length > 0) {
        lines.push('', '### What their qualification flagged as at risk');
        const seen = new Set<string>();
        for (const r of kept.risks) {
          const key = `${String(r.deal_name)}:${String(r.criterion)}`;
          if (seen.has(key) || seen.size >= RISK_LINES) continue;
          seen.add(key);
          lines.push(
            `- **${String(r.deal_name)}**: ${String(r.criterion).replace(/_/g, ' ')}${r.notes ? ` — “${String(r.notes)}”` : ''}`,
          );
        }
        blocks.push(
          tableBlock(
            'Risks flagged on these deals',
            [
              ['deal_name', 'Deal'],
              ['criterion', 'Criterion'],
              ['notes', 'Notes'],
              ['occurred_at', 'Assessed'],
            ],
            kept.risks,
            limitedTo(riskQuery, kept.risks.length, risks.length),
          ),
        );
      }
      if (quotes.length > 0) {
        lines.push('', '### What their buyers said while these deals were open');
        for (const qb of quotes)
          lines.push(
            `- **${qb.source.account ?? 'No linked account'}**, ${qb.source.speaker ?? 'a customer'}: “${qb.text}”`,
          );
        blocks.push(...quotes);
      }
      return {
        analysis: 'losses',
        read_as: readAs,
        summary: lines,
        blocks,
        // The lost deals and the risks are their tables' rows (each cited by its own search), carried once.
        results: { totals: [row!] },
        empty_reason: null,
      };
    });
  },
});

/** The risks qualification flagged on the largest losses, and one buyer quote per account of theirs. */
async function reasonsOf(ctx: OperationContext, q: ReturnType<typeof queriesOf>, top: Row[]) {
  const risks = (await searchWithin(ctx, q.risks(top.map((d) => String(d.name))))).results;
  const accounts = [...new Set(top.flatMap((d) => (typeof d.account_name === 'string' ? [d.account_name] : [])))].slice(
    0,
    QUOTED_ACCOUNTS,
  );
  const quotes = [];
  // The period bounds the close dates: a buyer is quoted from while the lost deal was open, from its
  // creation to its close, never from before it existed.
  for (const account of accounts) {
    const deal = top.find((d) => d.account_name === account);
    const rows = (await searchWithin(ctx, q.voice(account))).results;
    const during = rows.filter((r) => duringDeal(r.occurred_at, deal));
    quotes.push(...externalTurnsOf(during, 1).map((c) => quoteBlock(c, VOICE_TOPIC, 'context')));
  }
  return { risks, quotes };
}
