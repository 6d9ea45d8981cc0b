import type { StepResult, ToolCall } from '../../../platform/model/port.js';
import { DEAL_STAGES, INTERACTION_KINDS } from '../../../schema/index.js';
import type { BlockDraft } from '../answer.js';
import type { Interpretation } from '../understanding/interpretation.js';
import { readAs, spoken } from '../understanding/read-as.js';
import { DELAY_SIGNALS } from '../understanding/lexicon.js';
import { measureAlias } from '../understanding/reader.js';
import { nameFromEmail } from '../understanding/vocabulary.js';
import { rowsOf, type PolicyContext } from './context.js';
import { lossesIntentOf, lossesStep } from './shape-losses.js';
import { FINAL_ANSWER } from '../tool-names.js';
import { day, tableBlock } from './evidence.js';
import { call, calls, capitalize, finish, type Query } from './steps.js';
import { staleNote, whyEmpty } from './search-notes.js';

/**
 * The records analyses answered from an interpretation (understanding/reader.ts): deals and
 * conversations filtered, grouped, ordered and limited; counts and totals; a win rate (the share of
 * closed deals won, the filter lane's `share` metric); weighted pipeline (the sum of each open deal's
 * `weighted_amount`, amount × probability). Every figure is a cell of a `search_query` the verifier
 * re-runs, and the answer opens with how the question was read.
 */

/** The columns a list shows: only these are read, so a long list fits the transcript a model reads it through. */
const LIST_FIELDS = {
  deals: ['name', 'account_name', 'stage', 'amount', 'close_date', 'owner_email', 'is_closed'],
  interactions: ['occurred_at', 'kind', 'title', 'account_name'],
};

export function recordsQueries(r: Interpretation): { totals: Query; groups: Query | null; list: Query | null } {
  const filters: Query[] = r.filters.map(({ field, op, value }) => ({ field, op, value }));
  if (r.period)
    filters.push(
      { field: r.period.field, op: 'gte', value: r.period.from },
      { field: r.period.field, op: 'lt', value: r.period.to },
    );
  const surface = r.subject === 'interactions' ? 'interactions' : 'deals';
  // A search needs a filter to be one; with none asked, every kind or stage is the whole set, said as such.
  if (filters.length === 0)
    filters.push(
      surface === 'interactions'
        ? { field: 'kind', op: 'in', value: [...INTERACTION_KINDS] }
        : { field: 'stage', op: 'in', value: [...DEAL_STAGES] },
    );
  const metrics: Query[] =
    r.analysis === 'win_rate'
      ? [{ fn: 'share', field: 'is_won' }, { fn: 'count' }]
      : r.analysis === 'weighted_pipeline'
        ? [
            { fn: 'sum', field: 'weighted_amount' },
            { fn: 'sum', field: 'amount' },
            { fn: 'count' },
            { fn: 'count', field: 'probability' },
          ]
        : surface === 'deals'
          ? [
              { fn: 'count' },
              { fn: 'sum', field: 'amount' },
              ...(r.measure.fn === 'avg' ? [{ fn: 'avg', field: 'amount' }] : []),
            ]
          : [{ fn: 'count' }];
  const main = measureAlias(r.measure.fn === 'list' ? 'count' : r.measure.fn, r.measure.field);
  const groupOrder =
    r.order && metrics.some((m) => measureAlias(String(m.fn), (m.field as string) ?? null) === r.order!.field)
      ? r.order
      : { field: main === 'count' && surface === 'deals' ? 'sum_amount' : main, dir: 'desc' };
  const listOrder =
    r.order && ['amount', 'close_date', 'occurred_at'].includes(r.order.field)
      ? r.order
      : surface === 'deals'
        ? r.period?.field === 'close_date' || r.filters.some((f) => f.field === 'close_date')
          ? { field: 'close_date', dir: 'asc' }
          : { field: 'amount', dir: 'desc' }
        : { field: 'occurred_at', dir: 'desc' };
  const listed = r.analysis === 'records' && (r.measure.fn === 'list' || surface === 'deals');
  return {
    totals: { surface, filters, metrics },
    groups: r.group_by ? { surface, filters, group_by: [r.group_by], metrics, order_by: groupOrder, limit: 50 } : null,
    list: listed
      ? { surface, filters, order_by: listOrder, limit: Math.min(r.limit ?? 50, 50), fields: LIST_FIELDS[surface] }
      : null,
  };
}

/**
 * Deals pushed out: the conversations linked to a deal in which the buyer said the project is on hold,
 * frozen or paused (one search per signal of DELAY_SIGNALS), with the deal's filters carried onto the
 * conversations' deal fields. Rows, not counts: the title often says until when ("on hold until April").
 */
export function slippedQueries(r: Interpretation): Query[] {
  const filters: Query[] = [{ field: 'deal_id', op: 'not_null' }];
  for (const f of r.filters) {
    if (f.field === 'is_closed' && f.value === false)
      filters.push({ field: 'deal_stage', op: 'not_in', value: CLOSED_STAGES });
    if (f.field === 'is_closed' && f.value === true && !r.filters.some((g) => g.field === 'is_won'))
      filters.push({ field: 'deal_stage', op: 'in', value: CLOSED_STAGES });
    if (f.field === 'is_won')
      filters.push({ field: 'deal_stage', op: 'eq', value: f.value ? 'closed_won' : 'closed_lost' });
    if (f.field === 'stage') filters.push({ field: 'deal_stage', op: f.op, value: f.value });
    if (f.field === 'account_name' || f.field === 'account_region' || f.field === 'account_industry')
      filters.push({ field: f.field, op: f.op, value: f.value });
    if (f.field === 'name') filters.push({ field: 'deal_name', op: f.op, value: f.value });
  }
  if (r.period)
    filters.push(
      { field: 'occurred_at', op: 'gte', value: r.period.from },
      { field: 'occurred_at', op: 'lt', value: r.period.to },
    );
  return DELAY_SIGNALS.map((signal) => ({
    surface: 'interactions',
    filters: [...filters, { field: 'said_or_written', op: 'contains', value: signal }],
    order_by: { field: 'occurred_at', dir: 'desc' },
    fields: ['occurred_at', 'title', 'deal_name', 'deal_stage', 'account_name'],
    limit: 50,
  }));
}
const CLOSED_STAGES = ['closed_won', 'closed_lost'];

function slippedStep(ctx: PolicyContext, r: Interpretation): StepResult {
  const pending = slippedCalls(ctx, r, 'slipped');
  if (pending.length > 0 && !ctx.mustFinish) return calls(...pending);
  const lines: string[] = [`*Read as: ${readAs(r)}.*`, ''];
  const blocks: BlockDraft[] = [];
  slippedSection(ctx, r, 'slipped', lines, blocks);
  return finish({
    text: lines.join('\n'),
    content_blocks: blocks,
    follow_ups: ['Which of these deals have gone quiet?', 'What did we lose last quarter and why?'],
  });
}

const slippedCalls = (ctx: PolicyContext, r: Interpretation, prefix: string): ToolCall[] =>
  ctx.results.get(`${prefix}_0`) ? [] : slippedQueries(r).map((q, i) => call(ctx, `${prefix}_${i}`, q));

/** The deals pushed out, one line each with the conversation that says so, and a table per signal. */
function slippedSection(ctx: PolicyContext, r: Interpretation, prefix: string, lines: string[], blocks: BlockDraft[]) {
  const queries = slippedQueries(r);
  const byDeal = new Map<string, Row[]>();
  queries.forEach((q, i) => {
    const rows = rowsOf(ctx.results.get(`${prefix}_${i}`));
    for (const row of rows) byDeal.set(String(row.deal_name), [...(byDeal.get(String(row.deal_name)) ?? []), row]);
    if (rows.length > 0)
      blocks.push(
        tableBlock(
          `Conversations that say ${DELAY_SIGNALS[i]}`,
          [
            ['occurred_at', 'When'],
            ['title', 'Title'],
            ['deal_name', 'Deal'],
            ['deal_stage', 'Stage'],
            ['account_name', 'Account'],
          ],
          rows,
          q,
        ),
      );
  });
  if (byDeal.size === 0) {
    lines.push(
      `I found no conversation on a deal in that set where anyone said the project is ${DELAY_SIGNALS.map((s) => `"${s}"`).join(', ')}, so no deal shows as pushed out. The CRM keeps no history of close-date changes, so slips it does not mention in a conversation are not visible here.`,
    );
    return;
  }
  lines.push(
    `These deals were pushed out by the buyer's own account — a conversation on the deal says the project is on hold, frozen or paused (the CRM keeps no history of close-date changes, so this is what the data shows):`,
    '',
  );
  for (const [deal, rows] of byDeal) {
    const latest = rows.reduce((a, b) => (String(a.occurred_at) > String(b.occurred_at) ? a : b));
    lines.push(
      `- **${deal}** (${String(latest.account_name ?? 'no account')}, now ${String(latest.deal_stage)}): *${String(latest.title ?? '(no title)')}*, ${day(latest.occurred_at) ?? ''}`,
    );
  }
}

export function recordsStep(ctx: PolicyContext, r: Interpretation): StepResult {
  if (r.analysis === 'not_understood') return finish(absentAnswer(r));
  if (r.analysis === 'slipped') return slippedStep(ctx, r);
  if (r.analysis === 'losses') return openedWithReadAs(lossesStep(ctx, lossesIntentOf(r)), r);
  // Every record of a kind, for a question with words nothing placed ("which deals have slipped?"), would
  // answer another question: say what was understood and what was not instead.
  if (
    r.unexplained.length > 0 &&
    r.filters.length === 0 &&
    !r.period &&
    r.measure.fn === 'list' &&
    !r.group_by &&
    !r.order
  )
    return finish(partlyUnderstood(r));
  const views = viewsOf(r, 'records');
  const pending = pendingCalls(ctx, views);
  if (pending.length > 0 && !ctx.mustFinish) return calls(...pending);
  const lines: string[] = [`*Read as: ${readAs(r)}.*`, ''];
  const blocks: BlockDraft[] = [];
  const count = answerViews(ctx, r, views, lines, blocks);
  const stale = staleNote(ctx.results.get('records_totals'));
  if (stale) lines.push('', stale);
  if (r.unexplained.length > 0)
    lines.push(
      '',
      `I did not use these words of your question, because nothing in the data matched them: ${r.unexplained.map((w) => `"${w}"`).join(', ')}. If they should narrow the answer, say how (an account, a person, a stage, a period).`,
    );
  return finish({
    text: lines.join('\n').trim(),
    content_blocks: blocks,
    follow_ups: followUps(r, count),
  });
}

/** An answer another step composed, opened with how its question was read. */
function openedWithReadAs(step: StepResult, r: Interpretation): StepResult {
  return {
    ...step,
    tool_calls: step.tool_calls.map((c) =>
      c.name === FINAL_ANSWER
        ? { ...c, arguments: { ...c.arguments, text: `*Read as: ${readAs(r)}.*\n\n${String(c.arguments.text ?? '')}` } }
        : c,
    ),
  };
}

/** The views a reading is answered by: itself, or with two periods side by side, one per period. */
function viewsOf(r: Interpretation, prefix: string): View[] {
  return r.compare_to
    ? [
        { r: { ...r, compare_to: null }, prefix, period: r.period },
        { r: { ...r, period: r.compare_to, compare_to: null }, prefix: `${prefix}_compared`, period: r.compare_to },
      ]
    : [{ r, prefix, period: null }];
}

const pendingCalls = (ctx: PolicyContext, views: View[]): ToolCall[] =>
  views.flatMap((v) => (ctx.results.get(`${v.prefix}_totals`) ? [] : sectionCalls(ctx, v)));

/** The sections of a reading's views written one under the other (and which side is higher); returns the first's count. */
function answerViews(ctx: PolicyContext, r: Interpretation, views: View[], lines: string[], blocks: BlockDraft[]) {
  const sections = views.map((v) => recordsSection(ctx, v));
  for (const [i, s] of sections.entries()) {
    if (views.length > 1) lines.push(`**${periodHeading(views[i]!.period!)}**`, '');
    lines.push(...s.lines, '');
    blocks.push(...s.blocks);
  }
  if (views.length > 1) lines.push(...comparedLine(r, views, sections));
  return sections[0]?.count ?? 0;
}

/**
 * A question of several parts: each part read on its own (reader.ts readParts) and answered under its
 * own "Read as" line, in one answer; a part that is not about records is named, in its own words, as
 * not answered here and offered as a question of its own, never dropped in silence.
 */
export function partsStep(ctx: PolicyContext, parts: { text: string; reading: Interpretation | null }[]): StepResult {
  const answers = parts.map((p, i) => (p.reading ? partAnswer(p.reading, `part${i}`) : null));
  const pending = answers.flatMap((a) => a?.calls(ctx) ?? []);
  if (pending.length > 0 && !ctx.mustFinish) return calls(...pending);
  const lines: string[] = [
    `*Read as: a question in ${WORD_COUNTS[parts.length] ?? 'several'} parts, each answered below.*`,
    '',
  ];
  const blocks: BlockDraft[] = [];
  const followUps: string[] = [];
  parts.forEach((p, i) => {
    const r = p.reading;
    const answer = answers[i];
    // A part not answered here is named in its heading, so the reader (and the verifier) sees which it is.
    const heading =
      r && (answer || r.analysis === 'not_understood') ? capitalize(readAs(r)) : `Not answered here: ${p.text}`;
    lines.push(`${i + 1}. **${heading}**`, '');
    if (r && answer) {
      answer.write(ctx, lines, blocks);
      lines.push('');
      if (r.unexplained.length > 0)
        lines.push(`Words of this part I did not use: ${r.unexplained.map((w) => `"${w}"`).join(', ')}.`, '');
    } else if (r?.analysis === 'not_understood') {
      lines.push(absentAnswer(r).text.split('\n').slice(2).join('\n'), '');
    } else {
      lines.push(
        'This part asks for another kind of answer than the figures above; I have not answered it here. It is offered as a question of its own below.',
        '',
      );
      followUps.push(p.text);
    }
  });
  return finish({ text: lines.join('\n').trim(), content_blocks: blocks, follow_ups: followUps.slice(0, 3) });
}

/** How one part is answered inside a multi-part answer: the searches it needs, then its lines and blocks. */
interface PartAnswer {
  calls(ctx: PolicyContext): ToolCall[];
  write(ctx: PolicyContext, lines: string[], blocks: BlockDraft[]): void;
}

function partAnswer(r: Interpretation, prefix: string): PartAnswer | null {
  if (r.analysis === 'slipped')
    return {
      calls: (ctx) => slippedCalls(ctx, r, prefix),
      write: (ctx, lines, blocks) => slippedSection(ctx, r, prefix, lines, blocks),
    };
  if (!answersHere(r)) return null;
  const views = viewsOf(r, prefix);
  return {
    calls: (ctx) => pendingCalls(ctx, views),
    write: (ctx, lines, blocks) => {
      answerViews(ctx, r, views, lines, blocks);
    },
  };
}

const answersHere = (r: Interpretation): boolean =>
  r.analysis !== 'not_understood' && r.analysis !== 'slipped' && r.analysis !== 'losses' && r.subject !== null;
const WORD_COUNTS: Record<number, string> = { 2: 'two', 3: 'three', 4: 'four', 5: 'five' };

/** One reading answered under a purpose prefix, so several can share an answer (two periods, the parts of a question). */
interface View {
  r: Interpretation;
  prefix: string;
  /** The period this view stands for, when the answer sets several side by side. */
  period: Interpretation['period'];
}

interface Section {
  lines: string[];
  blocks: BlockDraft[];
  count: number;
  /** The cell the comparison of periods compares, with its column. */
  main: { column: string; value: number | null };
}

export function sectionCalls(ctx: PolicyContext, v: View): ToolCall[] {
  const q = recordsQueries(v.r);
  return [
    call(ctx, `${v.prefix}_totals`, q.totals),
    ...(q.groups ? [call(ctx, `${v.prefix}_groups`, q.groups)] : []),
    ...(q.list ? [call(ctx, `${v.prefix}_list`, q.list)] : []),
  ];
}

export function recordsSection(ctx: PolicyContext, v: View): Section {
  const { r, prefix } = v;
  const q = recordsQueries(r);
  const totals = ctx.results.get(`${prefix}_totals`);
  const total = rowsOf(totals)[0];
  if (!total) return { lines: [`I could not read them: ${whyEmpty(totals)}.`], blocks: [], count: 0, main: NO_MAIN };
  const lines: string[] = [];
  const blocks: BlockDraft[] = [];
  const groups = rowsOf(ctx.results.get(`${prefix}_groups`));
  const list = rowsOf(ctx.results.get(`${prefix}_list`));
  if (r.analysis === 'win_rate') winRate(r, q, total, groups, lines, blocks);
  else if (r.analysis === 'weighted_pipeline') weighted(r, q, total, groups, lines, blocks);
  else if (r.subject === 'interactions') conversations(r, q, total, groups, list, lines, blocks);
  else deals(r, q, total, groups, list, lines, blocks);
  const column = mainColumn(r);
  // Side by side, each block says which period it stands for.
  const suffix = v.period ? ` (${periodHeading(v.period)})` : '';
  return {
    lines,
    blocks: suffix
      ? blocks.map((b) =>
          b.kind === 'metric'
            ? { ...b, label: `${b.label}${suffix}` }
            : b.kind === 'table'
              ? { ...b, title: `${b.title}${suffix}` }
              : b,
        )
      : blocks,
    count: num(total.count) ?? 0,
    main: { column, value: num(total[column]) },
  };
}

const NO_MAIN = { column: 'count', value: null };

/** The figure a comparison of periods compares: the rate, the weighted or summed amount, or the count. */
function mainColumn(r: Interpretation): string {
  if (r.analysis === 'win_rate') return 'share_is_won';
  if (r.analysis === 'weighted_pipeline') return 'sum_weighted_amount';
  if (r.subject === 'deals' && (r.measure.fn === 'sum' || r.measure.fn === 'avg'))
    return measureAlias(r.measure.fn, 'amount');
  return 'count';
}

/** "last quarter (from 2026-07-01, before 2026-10-01)": a phrase with digits other than a year is not echoed. */
function periodHeading(p: NonNullable<Interpretation['period']>, opening = true): string {
  const phrase = spoken(p.phrase);
  return `${opening ? capitalize(phrase) : phrase}(from ${p.from}, before ${p.to})`.trim();
}

/** Which side is higher, in words over the two cells themselves: a difference would be a number no cell backs. */
function comparedLine(r: Interpretation, views: View[], sections: Section[]): string[] {
  const [a, b] = sections;
  if (!a || !b || a.main.value === null || b.main.value === null) return [];
  const [pa, pb] = [views[0]!.period!, views[1]!.period!];
  const show = (s: Section) =>
    s.main.column === 'share_is_won'
      ? pct(s.main.value)
      : s.main.column === 'count'
        ? String(s.main.value)
        : (money(s.main.value) ?? '$0');
  const what =
    r.analysis === 'win_rate'
      ? 'The win rate'
      : r.analysis === 'weighted_pipeline'
        ? 'The weighted pipeline'
        : a.main.column === 'count'
          ? 'The number'
          : a.main.column === 'avg_amount'
            ? 'The average amount'
            : 'The total amount';
  const verdict =
    a.main.value === b.main.value ? 'the same as' : a.main.value > b.main.value ? 'higher than' : 'lower than';
  return [
    `${what} is **${show(a)}** for ${periodHeading(pa, false)}, ${verdict} **${show(b)}** for ${periodHeading(pb, false)}.`,
  ];
}

type Row = Record<string, unknown>;
type Queries = ReturnType<typeof recordsQueries>;
/** "$80,800", or "$561,929.5" when the cell has cents: the prose writes the cell's own value, which the verifier backs. */
const money = (value: unknown): string | null => {
  const n = num(value);
  if (n === null) return null;
  return `$${n.toLocaleString('en-US', { maximumFractionDigits: 2 })}`;
};
const num = (v: unknown): number | null =>
  typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v)) ? Number(v) : null;
const pct = (v: unknown): string => `${num(v) ?? 0}%`;
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

function winRate(
  r: Interpretation,
  q: Queries,
  total: Row,
  groups: Row[],
  lines: string[],
  blocks: BlockDraft[],
): void {
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
    r,
    q,
    groups,
    lines,
    blocks,
    'Win rate by',
    (g) => `${pct(g.share_is_won)} of ${num(g.count)} closed`,
    [
      ['share_is_won', 'Win rate (%)'],
      ['count', 'Closed deals'],
    ],
  );
  if (key && groups.length > 1 && r.order?.field === 'share_is_won') {
    const best = groups[0]!;
    const worst = groups.at(-1)!;
    const [hi, lo] = r.order.dir === 'desc' ? [best, worst] : [worst, best];
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
  r: Interpretation,
  q: Queries,
  groups: Row[],
  lines: string[],
  blocks: BlockDraft[],
  title: string,
  line: (g: Row) => string,
  columns: [string, string][],
): string | null {
  if (!q.groups || groups.length === 0 || !r.group_by) return null;
  const key = r.group_by;
  const by = GROUP_TITLES[key]?.toLowerCase() ?? key;
  lines.push('', `By ${by}:`);
  for (const g of groups) lines.push(`- **${groupLabel(key, g[key])}**: ${line(g)}`);
  blocks.push(tableBlock(`${title} ${by}`, [[key, GROUP_TITLES[key] ?? key], ...columns], groups, q.groups));
  return key;
}

function weighted(
  r: Interpretation,
  q: Queries,
  total: Row,
  groups: Row[],
  lines: string[],
  blocks: BlockDraft[],
): void {
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
    r,
    q,
    groups,
    lines,
    blocks,
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

function deals(
  r: Interpretation,
  q: Queries,
  total: Row,
  groups: Row[],
  list: Row[],
  lines: string[],
  blocks: BlockDraft[],
): void {
  const count = num(total.count) ?? 0;
  const sum = num(total.sum_amount);
  blocks.push({ kind: 'metric', label: 'Deals', value: count, column: 'count', query: q.totals });
  if (count === 0) {
    lines.push('No deals match.');
    return;
  }
  blocks.push({ kind: 'metric', label: 'Total amount', value: sum, column: 'sum_amount', query: q.totals });
  if (r.measure.fn === 'avg' && num(total.avg_amount) !== null)
    blocks.push({
      kind: 'metric',
      label: 'Average amount',
      value: num(total.avg_amount),
      column: 'avg_amount',
      query: q.totals,
    });
  if (r.limit === 1 && list[0]) {
    lines.push(`${dealLine(list[0], r)}.`);
  } else {
    lines.push(
      `**${count}** deal${count === 1 ? '' : 's'}${sum !== null ? `, **${money(sum)}** in total` : ' (amounts not recorded)'}${r.measure.fn === 'avg' && num(total.avg_amount) !== null ? `, **${money(num(total.avg_amount))}** on average` : ''}.`,
    );
  }
  groupSection(
    r,
    q,
    groups,
    lines,
    blocks,
    'Deals by',
    (g) => `${num(g.count)} deal${g.count === 1 ? '' : 's'}, ${money(num(g.sum_amount)) ?? 'no amounts'}`,
    [
      ['count', 'Deals'],
      ['sum_amount', 'Amount'],
    ],
  );
  if (q.list && list.length > 0 && r.limit !== 1) {
    const shown = list.slice(0, r.limit ?? 12);
    lines.push(
      '',
      list.length < count
        ? `The first of them, ${LIST_ORDER[String(q.list.order_by && (q.list.order_by as Row).field)] ?? 'in order'}:`
        : 'They are:',
    );
    for (const d of shown) lines.push(`- ${dealLine(d, r)}`);
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

function dealLine(d: Row, r: Interpretation): string {
  const parts = [
    `**${String(d.name)}** (${String(d.account_name ?? 'no account')})`,
    String(d.stage),
    money(num(d.amount)) ?? 'amount unknown',
  ];
  if (day(d.close_date)) parts.push(`${d.is_closed ? 'closed' : 'closing'} ${day(d.close_date)}`);
  if (r.show.includes('owner_email') || r.limit === 1 || !r.filters.some((f) => f.field === 'owner_email'))
    parts.push(`owned by ${who(d.owner_email)}`);
  return parts.join(', ');
}

function conversations(
  r: Interpretation,
  q: Queries,
  total: Row,
  groups: Row[],
  list: Row[],
  lines: string[],
  blocks: BlockDraft[],
): void {
  const count = num(total.count) ?? 0;
  const kinds = r.filters.find((f) => f.field === 'kind');
  const noun = !kinds
    ? 'conversations (calls, meetings and emails)'
    : Array.isArray(kinds.value)
      ? kinds.value.map((k) => `${k}s`).join(' and ')
      : `${kinds.value}s`;
  blocks.push({ kind: 'metric', label: `Number of ${noun}`, value: count, column: 'count', query: q.totals });
  lines.push(count === 0 ? `No ${noun} match.` : `**${count}** ${noun}.`);
  groupSection(r, q, groups, lines, blocks, 'By', (g) => `${num(g.count)}`, [['count', 'Count']]);
  if (q.list && list.length > 0) {
    const shown = list.slice(0, Math.min(r.limit ?? 10, 10));
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

function absentAnswer(r: Interpretation): { text: string; content_blocks: BlockDraft[]; follow_ups: string[] } {
  const subjects = r.absent.join(' or ');
  const lines = [
    `*Read as: ${readAs(r)}.*`,
    '',
    `This workspace's data does not hold ${subjects}, so I can't answer that without guessing, and I have not answered with other figures in its place.`,
    '',
    'I understood the question as asking about ' +
      subjects +
      (r.names.accounts.length || r.names.people.length
        ? `, for ${[...r.names.accounts, ...r.names.people].join(', ')}`
        : '') +
      '. What the data does hold: CRM accounts and deals (stage, amount, probability, close date, owner) and the calls, meetings and emails with their transcripts.',
  ];
  return {
    text: lines.join('\n'),
    content_blocks: [],
    follow_ups: [
      'What is our open pipeline by stage?',
      "What's our win rate this year?",
      'What did customers say about pricing last quarter?',
    ],
  };
}

function partlyUnderstood(r: Interpretation): { text: string; content_blocks: BlockDraft[]; follow_ups: string[] } {
  const records = r.subject === 'interactions' ? 'calls, meetings and emails' : 'deals';
  const follow =
    r.subject === 'interactions'
      ? [
          'How many calls did we have last month?',
          'Which accounts have gone quiet?',
          'Meetings with Acme Logistics this quarter?',
        ]
      : [
          'Which open deals close this quarter?',
          'Which deals have gone quiet?',
          'What did we lose last quarter and why?',
        ];
  return {
    text: [
      `*Read as: ${readAs(r)}, and words I could not place.*`,
      '',
      `I understood that you are asking about ${records}, but not what ${r.unexplained.map((w) => `"${w}"`).join(', ')} should select: nothing in the data (a stage, a state, a field, a name) matches ${r.unexplained.length === 1 ? 'it' : 'them'}. Listing every one would answer another question, so I have not.`,
      '',
      'Questions like these I can answer:',
      ...follow.map((f) => `- ${f}`),
    ].join('\n'),
    content_blocks: [],
    follow_ups: follow,
  };
}

function followUps(r: Interpretation, count: number): string[] {
  if (r.analysis === 'win_rate')
    return r.group_by
      ? ['What did we lose last quarter and why?']
      : ['Win rate by rep?', 'What did we lose last quarter and why?'];
  if (r.analysis === 'weighted_pipeline')
    return r.group_by
      ? ['Which of these deals have gone quiet?']
      : ['Weighted pipeline by stage?', 'Which of these deals have gone quiet?'];
  if (r.subject === 'interactions') return ['Which accounts have gone quiet?'];
  return count > 0
    ? ['Which of these deals have gone quiet?', 'Weighted pipeline for these?']
    : ['Which deals are closing this quarter?'];
}
