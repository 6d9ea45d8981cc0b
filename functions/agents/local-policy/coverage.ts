import type { StepResult } from '../../../platform/model/port.js';
import type { AnswerDraft } from '../answer.js';
import { ASK_USER, FINAL_ANSWER } from '../tool-names.js';
import { rowsOf, searchNotes, type PolicyContext } from './context.js';
import { day, tableBlock } from './evidence.js';
import type { Intent } from './intent.js';

/**
 * Every answer says what it rests on: how much data the searches could read and over which span
 * (one aggregate query, shown as a table so its numbers are cells), whether the synced data is
 * behind, and what the lanes cannot see. The coverage query runs beside the first searches.
 */

type Query = Record<string, unknown>;

const surfaceOf = (intent: Intent): 'interactions' | 'deals' =>
  intent.kind === 'deals' ||
  intent.kind === 'qualification' ||
  intent.kind === 'losses' ||
  (intent.kind === 'quiet' && intent.target === 'deals') ||
  (intent.kind === 'compare' && ['won', 'lost', 'pipeline'].includes(intent.subject))
    ? 'deals'
    : 'interactions';

export const coverageQuery = (intent: Intent): Query => ({
  surface: surfaceOf(intent),
  metrics: [{ fn: 'count' }, { fn: 'min', field: 'occurred_at' }, { fn: 'max', field: 'occurred_at' }],
});

/** Add the coverage query to the run's first searches, and the coverage section to its answer. */
export function withCoverage(ctx: PolicyContext, intent: Intent, step: StepResult): StepResult {
  if (intent.kind === 'no_search' || intent.kind === 'not_understood') return step;
  const names = step.tool_calls.map((c) => c.name);
  if (names.includes(FINAL_ANSWER)) {
    const answer = step.tool_calls[0]!.arguments as unknown as AnswerDraft;
    return {
      ...step,
      tool_calls: [
        {
          ...step.tool_calls[0]!,
          arguments: appendCoverage(ctx, intent, answer) as unknown as Record<string, unknown>,
        },
      ],
    };
  }
  if (ctx.results.has('coverage') || names.includes(ASK_USER) || step.tool_calls.length === 0) return step;
  return {
    ...step,
    tool_calls: [
      ...step.tool_calls,
      { id: `s${ctx.step}_coverage`, name: 'search_query', arguments: coverageQuery(intent) },
    ],
  };
}

function appendCoverage(ctx: PolicyContext, intent: Intent, answer: AnswerDraft): AnswerDraft {
  const result = ctx.results.get('coverage');
  const row = rowsOf(result)[0];
  if (!row) return answer;
  const surface = surfaceOf(intent);
  const count = typeof row.count === 'number' ? row.count : null;
  const from = day(row.min_occurred_at);
  const to = day(row.max_occurred_at);
  const lines = ['', '### What this rests on'];
  if (!count) {
    lines.push(
      // Named as the table below is (the count of 0 it shows is what backs the sentence).
      `The ${surface} searched cover nothing yet: this workspace holds no ${surface === 'deals' ? 'CRM deals' : 'calls, meetings, emails or posts'}, so nothing above can rest on them.`,
    );
  } else {
    lines.push(
      surface === 'deals'
        ? `The CRM holds **${count}** deals, created from ${from} to ${to}; the figures above read all of them.`
        : `The workspace holds **${count}** calls, meetings, emails and posts, from ${from} to ${to}. Searches by meaning read only what people on the customer side said in calls, meetings and posts; emails and both sides are searched by their words.`,
    );
  }
  const stale = [...ctx.results.values()].some((r) => searchNotes(r).stale);
  if (stale)
    lines.push(
      `The synced data is behind: the newest ${surface === 'deals' ? 'deal' : 'interaction'} is from ${to}, so the latest activity may be missing.`,
    );
  const columns: [string, string][] = [
    ['count', surface === 'deals' ? 'Deals' : 'Interactions'],
    ['min_occurred_at', 'Earliest'],
    ['max_occurred_at', 'Latest'],
  ];
  return {
    ...answer,
    text: `${answer.text}\n${lines.join('\n')}`,
    content_blocks: [
      ...answer.content_blocks,
      tableBlock(`What the ${surface} searched cover`, columns, [row], coverageQuery(intent)),
    ],
  };
}

const WRITE_DOC = 'outputs_write_doc';

/**
 * A routine's run commits its findings as a document before it answers (the operation's gate
 * decides whether it publishes), then says in the answer where the findings went.
 */
export function withDocument(ctx: PolicyContext, step: StepResult): StepResult {
  const final = step.tool_calls.find((c) => c.name === FINAL_ANSWER);
  if (!final || !ctx.routine || !ctx.tools.has(WRITE_DOC)) return step;
  const answer = final.arguments as unknown as AnswerDraft;
  const saved = ctx.results.get('doc');
  if (!saved) {
    const title = ctx.ask.split('\n')[0]!.trim().slice(0, 120) || 'Routine findings';
    return {
      content: null,
      tool_calls: [
        {
          id: `s${ctx.step}_doc`,
          name: WRITE_DOC,
          arguments: { title, markdown: answer.text, content_blocks: answer.content_blocks },
        },
      ],
      usage: null,
    };
  }
  const out = saved.ok ? (saved.output as { version?: { status?: string } }).version : null;
  const note = !saved.ok
    ? `\n\nThe findings were not saved as a document: ${saved.error.message}`
    : out?.status === 'published'
      ? '\n\nThese findings are saved as a published document.'
      : "\n\nThese findings are saved as a document proposed for an editor to review (not every figure could be verified, or the agent is the workspace's own).";
  return {
    ...step,
    tool_calls: [
      { ...final, arguments: { ...answer, text: `${answer.text}${note}` } as unknown as Record<string, unknown> },
    ],
  };
}
