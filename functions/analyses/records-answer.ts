import type { BlockDraft } from '../agents/answer.js';
import { day, nameFromEmail, tableBlock } from '../agents/index.js';
import type { RecordsInput, RecordsQueries } from './records-queries.js';

/**
 * The records analysis's answer from its rows: the sentences that state it and the blocks their
 * numbers are cells of (each citing the `search.query` request it was read from). Prose writes a
 * cell's own value ("$561,929.5" when the cell has cents), so the verifier backs every figure.
 */

type Row = Record<string, unknown>;

export interface RecordsRows {
  total: Row;
  groups: Row[];
  list: Row[];
}

export function recordsAnswer(input: RecordsInput, q: RecordsQueries, rows: RecordsRows) {
  const lines: string[] = [];
  const blocks: BlockDraft[] = [];
  const compose = { input, q, ...rows, lines, blocks };
  if (input.measure === 'win_rate') winRate(compose);
  else if (input.measure === 'weighted_pipeline') weighted(compose);
  else if (input.records === 'conversations') conversations(compose);
  else deals(compose);
  return { lines, blocks };
}

interface Compose extends RecordsRows {
  input: RecordsInput;
  q: RecordsQueries;
  lines: string[];
  blocks: BlockDraft[];
}

const num = (v: unknown): number | null =>
  typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v)) ? Number(v) : null;
/** "$80,800", or "$561,929.5" when the cell has cents. */
export const money = (value: unknown): string | null => {
  const n = num(value);
  if (n === null) return null;
  return `$${n.toLocaleString('en-US', { maximumFractionDigits: 2 })}`;
};
export const pct = (v: unknown): string => `${num(v) ?? 0}%`;
const who = (email: unknown): string => (typeof email === 'string' ? (nameFromEmail(email) ?? email) : 'no owner');
const groupLabel = (field: string, v: unknown): string =>
  field === 'owner_email' ? who(v) : v === null || v === undefined ? 'none' : String(v);
const LIST_ORDER: Record<string, string> = {
  amount: 'by amount',
  close_date: 'by close date',
  occurred_at: 'latest first',
};
const GROUP_TITLES: Record<string, string> = {
  owner_email: 'Owner',
  stage: 'Stage',
  account_name: 'Account',
  account_region: 'Region',
  account_industry: 'Industry',
  kind: 'Kind',
};

function winRate({ input, q, total, groups, lines, blocks }: Compose): void {
  const closed = num(total.count) ?? 0;
  if (closed === 0) {
    lines.push('No deals closed in that set, so there is no win rate to give.');
    blocks.push({ kind: 'metric', label: 'Closed deals', value: 0, column: 'count', query: q.totals });
    return;
  }
  lines.push(`Win rate: **${pct(total.share_is_won)}** of the **${closed}** closed deals were won (won ÷ closed).`);
  blocks.push(
    { kind: 'metric', label: 'Win rate (%)', value: num(total.share_is_won), column: 'share_is_won', query: q.totals },
    { kind: 'metric', label: 'Closed deals', value: closed, column: 'count', query: q.totals },
  );
  const key = groupSection(
    { input, q, groups, lines, blocks },
    'Win rate by',
    (g) => `${pct(g.share_is_won)} of ${num(g.count)} closed`,
    [
      ['share_is_won', 'Win rate (%)'],
      ['count', 'Closed deals'],
    ],
  );
  if (key && groups.length > 1 && input.order?.field === 'share_is_won') {
    const best = groups[0]!;
    const worst = groups.at(-1)!;
    const [hi, lo] = input.order.dir === 'desc' ? [best, worst] : [worst, best];
    lines.push(
      '',
      `Highest: **${groupLabel(key, hi[key])}** (${pct(hi.share_is_won)}); lowest: **${groupLabel(key, lo[key])}** (${pct(lo.share_is_won)}).`,
    );
  }
}

/**
 * The rows of a grouped query: a heading, a line per group and the table its cells come from. Returns
 * the grouping field, or null when there was nothing grouped to show.
 */
function groupSection(
  { input, q, groups, lines, blocks }: Pick<Compose, 'input' | 'q' | 'groups' | 'lines' | 'blocks'>,
  title: string,
  line: (g: Row) => string,
  columns: [string, string][],
): string | null {
  if (!q.groups || groups.length === 0 || !input.group_by) return null;
  const key = input.group_by;
  const by = GROUP_TITLES[key]?.toLowerCase() ?? key;
  lines.push('', `By ${by}:`);
  for (const g of groups) lines.push(`- **${groupLabel(key, g[key])}**: ${line(g)}`);
  blocks.push(tableBlock(`${title} ${by}`, [[key, GROUP_TITLES[key] ?? key], ...columns], groups, q.groups));
  return key;
}

function weighted({ input, q, total, groups, lines, blocks }: Compose): void {
  const count = num(total.count) ?? 0;
  if (count === 0) {
    lines.push('No open deals match, so the weighted pipeline is empty.');
    blocks.push({ kind: 'metric', label: 'Open deals', value: 0, column: 'count', query: q.totals });
    return;
  }
  const w = num(total.sum_weighted_amount);
  lines.push(
    `Weighted pipeline: **${money(w) ?? '$0'}** (each deal's amount × its probability), against **${money(num(total.sum_amount)) ?? '$0'}** unweighted, over **${count}** open deals.`,
  );
  const withoutProbability = count - (num(total.count_probability) ?? count);
  if (withoutProbability > 0)
    lines.push(
      `**${withoutProbability}** of them have no probability in the CRM and count for nothing in the weighted figure.`,
    );
  blocks.push(
    { kind: 'metric', label: 'Weighted pipeline', value: w, column: 'sum_weighted_amount', query: q.totals },
    {
      kind: 'metric',
      label: 'Unweighted pipeline',
      value: num(total.sum_amount),
      column: 'sum_amount',
      query: q.totals,
    },
    { kind: 'metric', label: 'Open deals', value: count, column: 'count', query: q.totals },
    {
      kind: 'metric',
      label: 'Open deals with a probability',
      value: num(total.count_probability),
      column: 'count_probability',
      query: q.totals,
    },
  );
  groupSection(
    { input, q, groups, lines, blocks },
    'Weighted pipeline by',
    (g) =>
      `${money(num(g.sum_weighted_amount)) ?? '$0'} weighted (${money(num(g.sum_amount)) ?? '$0'} unweighted, ${num(g.count)} deals)`,
    [
      ['sum_weighted_amount', 'Weighted'],
      ['sum_amount', 'Unweighted'],
      ['count', 'Deals'],
    ],
  );
}

function deals({ input, q, total, groups, list, lines, blocks }: Compose): void {
  const count = num(total.count) ?? 0;
  const sum = num(total.sum_amount);
  const average = input.measure === 'average' ? num(total.avg_amount) : null;
  blocks.push({ kind: 'metric', label: 'Deals', value: count, column: 'count', query: q.totals });
  if (count === 0) {
    lines.push('No deals match.');
    return;
  }
  blocks.push({ kind: 'metric', label: 'Total amount', value: sum, column: 'sum_amount', query: q.totals });
  if (average !== null)
    blocks.push({ kind: 'metric', label: 'Average amount', value: average, column: 'avg_amount', query: q.totals });
  if (input.limit === 1 && list[0]) {
    lines.push(`${dealLine(list[0], input)}.`);
  } else {
    lines.push(
      `**${count}** deal${count === 1 ? '' : 's'}${sum !== null ? `, **${money(sum)}** in total` : ' (amounts not recorded)'}${average !== null ? `, **${money(average)}** on average` : ''}.`,
    );
  }
  groupSection(
    { input, q, groups, lines, blocks },
    'Deals by',
    (g) => `${num(g.count)} deal${g.count === 1 ? '' : 's'}, ${money(num(g.sum_amount)) ?? 'no amounts'}`,
    [
      ['count', 'Deals'],
      ['sum_amount', 'Amount'],
    ],
  );
  if (q.list && list.length > 0 && input.limit !== 1) {
    const shown = list.slice(0, input.limit ?? 12);
    lines.push(
      '',
      list.length < count
        ? `The first of them, ${LIST_ORDER[String(q.list.order_by && (q.list.order_by as Row).field)] ?? 'in order'}:`
        : 'They are:',
    );
    for (const d of shown) lines.push(`- ${dealLine(d, input)}`);
    if (list.length > shown.length) lines.push('- … the rest are in the table.');
  }
  if (q.list && list.length > 0)
    blocks.push(
      tableBlock(
        'Deals',
        [
          ['name', 'Deal'],
          ['account_name', 'Account'],
          ['stage', 'Stage'],
          ['amount', 'Amount'],
          ['close_date', 'Close date'],
          ['owner_email', 'Owner'],
        ],
        list,
        q.list,
      ),
    );
}

/** A deal in a line; its owner is named unless the request asked for one owner's deals. */
function dealLine(d: Row, input: RecordsInput): string {
  const parts = [
    `**${String(d.name)}** (${String(d.account_name ?? 'no account')})`,
    String(d.stage),
    money(num(d.amount)) ?? 'amount unknown',
  ];
  if (day(d.close_date)) parts.push(`${d.is_closed ? 'closed' : 'closing'} ${day(d.close_date)}`);
  if (input.limit === 1 || !input.filters.some((f) => f.field === 'owner_email'))
    parts.push(`owned by ${who(d.owner_email)}`);
  return parts.join(', ');
}

/** What the conversations asked are called: "calls and meetings", or all three kinds. */
export function conversationsNoun(input: RecordsInput): string {
  const kinds = input.filters.find((f) => f.field === 'kind');
  if (!kinds) return 'conversations (calls, meetings and emails)';
  return Array.isArray(kinds.value) ? kinds.value.map((k) => `${String(k)}s`).join(' and ') : `${String(kinds.value)}s`;
}

function conversations({ input, q, total, groups, list, lines, blocks }: Compose): void {
  const count = num(total.count) ?? 0;
  const noun = conversationsNoun(input);
  blocks.push({ kind: 'metric', label: `Number of ${noun}`, value: count, column: 'count', query: q.totals });
  lines.push(count === 0 ? `No ${noun} match.` : `**${count}** ${noun}.`);
  groupSection({ input, q, groups, lines, blocks }, 'By', (g) => `${num(g.count)}`, [['count', 'Count']]);
  if (q.list && list.length > 0) {
    const shown = list.slice(0, Math.min(input.limit ?? 10, 10));
    lines.push('', 'The latest:');
    for (const i of shown)
      lines.push(
        `- ${day(i.occurred_at) ?? ''} ${String(i.kind)}: ${String(i.title ?? '(no title)')} (${String(i.account_name ?? 'no account')})`,
      );
    blocks.push(
      tableBlock(
        'Conversations',
        [
          ['occurred_at', 'When'],
          ['kind', 'Kind'],
          ['title', 'Title'],
          ['account_name', 'Account'],
        ],
        shown,
        q.list,
      ),
    );
  }
}
