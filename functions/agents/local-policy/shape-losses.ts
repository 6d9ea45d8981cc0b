import type { StepResult } from '../../../platform/model/port.js';
import type { BlockDraft } from '../answer.js';
import { rowsOf, type PolicyContext } from './context.js';
import { externalTurnsOf, money, quoteBlock, tableBlock } from './evidence.js';
import type { Intent } from './intent.js';
import type { Interpretation } from '../understanding/interpretation.js';
import { call, calls, finish, said, type Query } from './steps.js';
import { whyEmpty } from './search-notes.js';

/**
 * Why deals were lost: the lost deals (in the period, on their close date), the risks their
 * qualification recorded, and what the buyers on the largest of them said.
 */

type LossesIntent = Extract<Intent, { kind: 'losses' }>;
const VOICE_TOPIC = 'pricing budget competitor timeline decision risk';

const queries = (intent: LossesIntent) => {
  const filters: Query[] = [
    { field: 'is_closed', op: 'eq', value: true },
    { field: 'is_won', op: 'eq', value: false },
  ];
  if (intent.period)
    filters.push(
      { field: 'close_date', op: 'gte', value: intent.period.from },
      { field: 'close_date', op: 'lt', value: intent.period.to },
    );
  if (intent.deals.length > 0) filters.push({ field: 'name', op: 'in', value: intent.deals });
  else if (intent.accounts.length > 0) filters.push({ field: 'account_name', op: 'in', value: intent.accounts });
  for (const f of intent.filters ?? []) filters.push({ ...f });
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
};

const day = (v: unknown): string | null => (typeof v === 'string' && v.length >= 10 ? v.slice(0, 10) : null);

/** Whether an interaction happened while the deal was open: on or after its creation, on or before its close date. */
function duringDeal(occurredAt: unknown, deal: Record<string, unknown> | undefined): boolean {
  const at = day(occurredAt);
  const closed = day(deal?.close_date);
  if (!at || !closed) return false;
  const created = day(deal?.occurred_at);
  return at <= closed && (!created || at >= created);
}

/** The losses analysis as the reader composed it: its period (on the close date) and its other deal filters. */
export function lossesIntentOf(r: Interpretation): LossesIntent {
  const state = new Set(['is_closed', 'is_won']);
  return {
    kind: 'losses',
    period: r.period && r.period.field === 'close_date' ? r.period : null,
    accounts: [],
    deals: [],
    filters: r.filters.filter((f) => !state.has(f.field)).map(({ field, op, value }) => ({ field, op, value })),
  };
}

export function lossesStep(ctx: PolicyContext, intent: LossesIntent): StepResult {
  const q = queries(intent);
  const totals = ctx.results.get('totals');
  if (!totals && !ctx.mustFinish) return calls(call(ctx, 'totals', q.totals), call(ctx, 'list', q.list));
  const lost = rowsOf(ctx.results.get('list'));
  const top = lost.slice(0, 5);
  const topAccounts = [
    ...new Set(top.flatMap((d) => (typeof d.account_name === 'string' ? [d.account_name] : []))),
  ].slice(0, 3);
  if (top.length > 0 && !ctx.results.has('risks') && !ctx.mustFinish)
    return calls(
      call(ctx, 'risks', q.risks(top.map((d) => String(d.name)))),
      ...topAccounts.map((a, i) => call(ctx, `buyers${i}`, q.voice(a))),
    );
  const when = intent.period ? ` ${said(intent.period.phrase)}` : '';
  const row = rowsOf(totals)[0];
  const count = typeof row?.count === 'number' ? row.count : null;
  if (count === null || count === 0 || lost.length === 0)
    return finish({
      text: `I found no lost deals${when}${count === null ? `: ${whyEmpty(totals)}` : ''}.`,
      content_blocks:
        count === null
          ? []
          : [{ kind: 'metric', label: `Deals lost${when}`, value: count, column: 'count', query: q.totals }],
      follow_ups: ['Which deals did we lose this year?'],
    });
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
      lost,
      q.list,
    ),
  );
  const risks = rowsOf(ctx.results.get('risks'));
  if (risks.length > 0) {
    lines.push('', '### What their qualification flagged as at risk');
    const seen = new Set<string>();
    for (const r of risks) {
      const key = `${String(r.deal_name)}:${String(r.criterion)}`;
      if (seen.has(key) || seen.size >= 8) continue;
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
        risks,
        q.risks(top.map((d) => String(d.name))),
      ),
    );
  }
  // The period bounds the close dates (periodBoundsCloseDates): a buyer is quoted from while the lost
  // deal was open, from its creation to its close, never from before it existed.
  const quotes = topAccounts
    .flatMap((account, i) => {
      const deal = top.find((d) => d.account_name === account);
      const during = rowsOf(ctx.results.get(`buyers${i}`)).filter((r) => duringDeal(r.occurred_at, deal));
      return externalTurnsOf(during, 1);
    })
    .map((c) => quoteBlock(c, VOICE_TOPIC, 'context'));
  if (quotes.length > 0) {
    lines.push('', '### What their buyers said while these deals were open');
    for (const qb of quotes)
      lines.push(
        `- **${qb.source.account ?? 'No linked account'}**, ${qb.source.speaker ?? 'a customer'}: “${qb.text}”`,
      );
    blocks.push(...quotes);
  }
  return finish({
    text: lines.join('\n'),
    content_blocks: blocks,
    follow_ups: ['Which competitors come up most often?', 'Which open deals have a champion at risk?'],
  });
}
