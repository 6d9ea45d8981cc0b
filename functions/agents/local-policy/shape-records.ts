import type { StepResult, ToolCall } from '../../../platform/model/port.js';
import type { BlockDraft } from '../answer.js';
import type { Interpretation } from '../understanding/interpretation.js';
import { readAs, spoken } from '../understanding/read-as.js';
import { DELAY_SIGNALS } from '../understanding/lexicon.js';
import { rowsOf, type PolicyContext } from './context.js';
import { lossesIntentOf, lossesStep } from './shape-losses.js';
import { FINAL_ANSWER, toolNameFor } from '../tool-names.js';
import { day, tableBlock } from './evidence.js';
import { RECORDS_OPERATION, recordsInput } from './records-input.js';
import { call, calls, capitalize, finish, type Query } from './steps.js';

/**
 * The records questions answered from an interpretation (understanding/reader.ts): deals and
 * conversations filtered, grouped, ordered and limited; counts and totals; a win rate; weighted
 * pipeline. The figures are the `analyses.records` operation's, called as a tool like any other (a
 * hosted model calls the same one); this step composes its summaries and blocks into the answer,
 * opened with how the question was read, two periods side by side, or the parts of a question.
 */

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
  views.flatMap((v) => (ctx.results.get(v.prefix) ? [] : sectionCalls(ctx, v)));

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
  return [call(ctx, v.prefix, recordsInput(v.r), toolNameFor(RECORDS_OPERATION))];
}

/** What the records operation answered, as this step reads it back from its tool result. */
interface RecordsOutput {
  summary: string[];
  blocks: BlockDraft[];
  results: { totals?: Row[] };
  empty_reason: string | null;
}

export function recordsSection(ctx: PolicyContext, v: View): Section {
  const { r, prefix } = v;
  const result = ctx.results.get(prefix);
  if (!result?.ok) {
    const why = !result
      ? ctx.tools.has(toolNameFor(RECORDS_OPERATION))
        ? 'the records analysis did not run'
        : 'this agent cannot run the records analysis'
      : `the records analysis failed (${result.error.code}: ${result.error.message})`;
    return { lines: [`I could not read them: ${why}.`], blocks: [], count: 0, main: NO_MAIN };
  }
  const out = result.output as RecordsOutput;
  const total = out.results.totals?.[0];
  if (out.empty_reason || !total) return { lines: [out.empty_reason ?? ''], blocks: [], count: 0, main: NO_MAIN };
  const column = mainColumn(r);
  // Side by side, each block says which period it stands for.
  const suffix = v.period ? ` (${periodHeading(v.period)})` : '';
  return {
    lines: out.summary,
    blocks: suffix
      ? out.blocks.map((b) =>
          b.kind === 'metric'
            ? { ...b, label: `${b.label}${suffix}` }
            : b.kind === 'table'
              ? { ...b, title: `${b.title}${suffix}` }
              : b,
        )
      : out.blocks,
    count: num(total.count) ?? 0,
    main: { column, value: num(total[column]) },
  };
}

const NO_MAIN = { column: 'count', value: null };

/** The figure a comparison of periods compares: the rate, the weighted or summed amount, or the count. */
function mainColumn(r: Interpretation): string {
  if (r.analysis === 'win_rate') return 'share_is_won';
  if (r.analysis === 'weighted_pipeline') return 'sum_weighted_amount';
  if (r.subject === 'deals' && (r.measure.fn === 'sum' || r.measure.fn === 'avg')) return `${r.measure.fn}_amount`;
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
/** "$80,800", or "$561,929.5" when the cell has cents: the prose writes the cell's own value, which the verifier backs. */
const money = (value: unknown): string | null => {
  const n = num(value);
  if (n === null) return null;
  return `$${n.toLocaleString('en-US', { maximumFractionDigits: 2 })}`;
};
const num = (v: unknown): number | null =>
  typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v)) ? Number(v) : null;
const pct = (v: unknown): string => `${num(v) ?? 0}%`;

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
