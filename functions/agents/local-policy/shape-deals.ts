import type { StepResult } from '../../../platform/model/port.js';
import type { BlockDraft } from '../answer.js';
import { rowsOf, type PolicyContext } from './context.js';
import { day, money, tableBlock } from './evidence.js';
import type { DealFilter, Intent } from './intent.js';
import { call, calls, finish, type Query } from './steps.js';
import { staleNote, whyEmpty } from './search-notes.js';

/**
 * Deal lists and totals with filters (stage, amount, won, lost, open, owner, account, region, a
 * period on the close date), and breakdowns by stage or owner: one aggregate and one list, both
 * from the deals surface, so every figure is a cell.
 */

type DealsIntent = Extract<Intent, { kind: 'deals' }>;

export const dealQueries = (intent: Pick<DealsIntent, 'filters' | 'groupBy' | 'period'>) => {
  const filters = intent.filters as unknown as Query[];
  const byCloseDate = intent.filters.some((f) => f.field === 'close_date');
  return {
    totals: { surface: 'deals', filters, metrics: [{ fn: 'count' }, { fn: 'sum', field: 'amount' }] } as Query,
    list: {
      surface: 'deals',
      filters,
      order_by: byCloseDate ? { field: 'close_date', dir: 'asc' } : { field: 'amount', dir: 'desc' },
      limit: 50,
    } as Query,
    groups: intent.groupBy
      ? ({
          surface: 'deals',
          filters,
          group_by: [intent.groupBy],
          metrics: [{ fn: 'count' }, { fn: 'sum', field: 'amount' }],
          order_by: { field: intent.groupBy, dir: 'asc' },
        } as Query)
      : null,
  };
};

export function dealsStep(ctx: PolicyContext, intent: DealsIntent): StepResult {
  const q = dealQueries(intent);
  const totals = ctx.results.get('totals');
  if (!totals && !ctx.mustFinish)
    return calls(
      call(ctx, 'totals', q.totals),
      call(ctx, 'list', q.list),
      ...(q.groups ? [call(ctx, 'groups', q.groups)] : []),
    );
  const described = intent.described.length > 0 ? intent.described.join(', ') : 'in the pipeline';
  const row = rowsOf(totals)[0];
  const count = typeof row?.count === 'number' ? row.count : null;
  const sum = typeof row?.sum_amount === 'number' ? row.sum_amount : null;
  const rows = rowsOf(ctx.results.get('list'));
  const blocks: BlockDraft[] = [];
  const lines: string[] = [];
  if (count === null) {
    return finish({
      text: `I could not read the deals ${described}: ${whyEmpty(totals)}.`,
      content_blocks: [],
      follow_ups: [],
    });
  }
  blocks.push({ kind: 'metric', label: `Deals ${described}`, value: count, column: 'count', query: q.totals });
  if (count === 0) {
    lines.push(`No deals match (${describeFilters(intent.filters)}). ${staleNote(totals)}`.trim());
  } else {
    blocks.push({
      kind: 'metric',
      label: `Total amount of deals ${described}`,
      value: sum,
      column: 'sum_amount',
      query: q.totals,
    });
    lines.push(
      `**${count}** deal${count === 1 ? '' : 's'} ${count === 1 ? 'matches' : 'match'} (${describeFilters(intent.filters)})${sum !== null ? `, **${money(sum)}** in total` : ' (their amounts are not recorded)'}.`,
    );
    const groups = rowsOf(ctx.results.get('groups'));
    if (q.groups && groups.length > 0) {
      const key = intent.groupBy!;
      lines.push('', `By ${key === 'stage' ? 'stage' : 'owner'}:`);
      for (const g of groups)
        lines.push(
          `- **${String(g[key] ?? 'none')}**: ${String(g.count)} deal${g.count === 1 ? '' : 's'}, ${money(g.sum_amount) ?? 'no amounts'}`,
        );
      blocks.push(
        tableBlock(
          `Deals ${described}, by ${key === 'stage' ? 'stage' : 'owner'}`,
          [
            [key, key === 'stage' ? 'Stage' : 'Owner'],
            ['count', 'Deals'],
            ['sum_amount', 'Amount'],
          ],
          groups,
          q.groups,
        ),
      );
    }
    if (intent.want === 'list' || count <= 25) {
      const order = intent.filters.some((f) => f.field === 'close_date') ? 'by close date' : 'by amount';
      lines.push(
        '',
        rows.length < count
          ? `The first ${rows.length}, ${order}:`
          : `${order.charAt(0).toUpperCase()}${order.slice(1)}:`,
      );
      for (const d of rows.slice(0, 12))
        lines.push(
          `- **${String(d.name)}** (${String(d.account_name ?? 'no account')}): ${String(d.stage)}, ${money(d.amount) ?? 'amount unknown'}${day(d.close_date) ? `, closing ${day(d.close_date)}` : ''}`,
        );
      if (rows.length > 12) lines.push(`- … the rest are in the table.`);
      blocks.push(
        tableBlock(
          `Deals ${described}`,
          [
            ['name', 'Deal'],
            ['account_name', 'Account'],
            ['stage', 'Stage'],
            ['amount', 'Amount'],
            ['close_date', 'Close date'],
            ['owner_email', 'Owner'],
          ],
          rows,
          q.list,
        ),
      );
    }
  }
  return finish({
    text: lines.join('\n'),
    content_blocks: blocks,
    follow_ups:
      count > 0
        ? ['Which of these deals have gone quiet?', 'Who is the champion on each of these deals?']
        : ['Which deals are closing this quarter?'],
  });
}

export function describeFilters(filters: readonly DealFilter[]): string {
  const ops: Record<DealFilter['op'], string> = {
    eq: 'is',
    gt: 'over',
    gte: 'on or after',
    lt: 'before',
    lte: 'at most',
    in: 'is one of',
    not_in: 'is not',
  };
  return filters
    .map((f) => {
      if (f.field === 'is_closed') return f.value ? 'closed' : 'open';
      if (f.field === 'is_won') return f.value ? 'won' : 'not won';
      if (f.field === 'amount' && typeof f.value === 'number')
        return `amount ${f.op === 'gt' ? 'over' : f.op === 'lt' ? 'under' : f.op === 'gte' ? 'at least' : 'at most'} ${money(f.value)}`;
      const value = Array.isArray(f.value) ? f.value.join(', ') : String(f.value);
      return `${f.field.replace(/_/g, ' ')} ${ops[f.op]} ${value}`;
    })
    .join(', ');
}
