import type { StepResult } from '../../../platform/model/port.js';
import type { BlockDraft } from '../answer.js';
import type { AskedPeriod } from '../../search/index.js';
import { rowsOf, type PolicyContext } from './context.js';
import { money } from './evidence.js';
import type { Intent } from './intent.js';
import { call, calls, finish, said, type Query } from './steps.js';

/**
 * Two periods or two regions side by side: the same aggregate run once per side (deals won, lost
 * or open, by count and amount; or interactions by count), each figure a metric of its own query.
 */

type CompareIntent = Extract<Intent, { kind: 'compare' }>;
interface Side {
  label: string;
  query: Query;
}

function sides(intent: CompareIntent): Side[] {
  const deals = ['won', 'lost', 'pipeline'].includes(intent.subject);
  const base: Query[] =
    intent.subject === 'won'
      ? [{ field: 'is_won', op: 'eq', value: true }]
      : intent.subject === 'lost'
        ? [
            { field: 'is_closed', op: 'eq', value: true },
            { field: 'is_won', op: 'eq', value: false },
          ]
        : intent.subject === 'pipeline'
          ? [{ field: 'is_closed', op: 'eq', value: false }]
          : intent.subject === 'interactions'
            ? []
            : [{ field: 'kind', op: 'eq', value: intent.subject }];
  const field = deals ? (intent.subject === 'pipeline' ? 'occurred_at' : 'close_date') : 'occurred_at';
  const metrics = deals ? [{ fn: 'count' }, { fn: 'sum', field: 'amount' }] : [{ fn: 'count' }];
  const surface = deals ? 'deals' : 'interactions';
  if (intent.periods.length === 2)
    return intent.periods.map((p: AskedPeriod) => ({
      label: said(p.phrase),
      query: {
        surface,
        filters: [...base, { field, op: 'gte', value: p.from }, { field, op: 'lt', value: p.to }],
        metrics,
      },
    }));
  return intent.regions.map((r) => ({
    label: r,
    query: { surface, filters: [...base, { field: 'account_region', op: 'eq', value: r }], metrics },
  }));
}

const WHAT: Record<string, string> = {
  won: 'deals won',
  lost: 'deals lost',
  pipeline: 'open deals',
  interactions: 'calls, meetings and emails',
  call: 'calls',
  meeting: 'meetings',
  email: 'emails',
  post: 'posts',
};

export function compareStep(ctx: PolicyContext, intent: CompareIntent): StepResult {
  const both = sides(intent);
  if (!ctx.results.has('side0') && !ctx.mustFinish) return calls(...both.map((s, i) => call(ctx, `side${i}`, s.query)));
  const what = WHAT[intent.subject] ?? 'deals';
  const blocks: BlockDraft[] = [];
  const lines = [`${what.charAt(0).toUpperCase()}${what.slice(1)}, side by side:`, ''];
  const counts: number[] = [];
  both.forEach((s, i) => {
    const row = rowsOf(ctx.results.get(`side${i}`))[0];
    const n = typeof row?.count === 'number' ? row.count : null;
    if (n === null) {
      lines.push(`- **${s.label}**: could not be read.`);
      return;
    }
    counts.push(n);
    blocks.push({ kind: 'metric', label: `${what} (${s.label})`, value: n, column: 'count', query: s.query });
    const sum = typeof row?.sum_amount === 'number' ? row.sum_amount : null;
    if ('sum_amount' in (row ?? {}))
      blocks.push({
        kind: 'metric',
        label: `Amount of ${what} (${s.label})`,
        value: sum,
        column: 'sum_amount',
        query: s.query,
      });
    lines.push(`- **${s.label}**: **${n}** ${what}${sum !== null ? `, **${money(sum)}**` : ''}`);
  });
  if (counts.length === 2)
    lines.push(
      '',
      counts[0] === counts[1]
        ? 'The two are level by count.'
        : `By count, ${both[counts[0]! > counts[1]! ? 0 : 1]!.label} is ahead.`,
    );
  if (intent.periods.length === 2 && ['won', 'lost'].includes(intent.subject))
    lines.push('', 'Won and lost deals fall in a period by their close date.');
  return finish({
    text: lines.join('\n'),
    content_blocks: blocks,
    follow_ups: ['Break down the open pipeline by stage'],
  });
}
