import type { AgentMessage, ToolCall } from '../../platform/model/port.js';
import type { InvocationResult } from '../invoke.js';
import { countsNothing } from './grounding-absence.js';

/**
 * How tool results enter an agent's transcript (agents.md: "Tool results enter the transcript cut to
 * a budget with a note of what was cut"). The model — hosted or local — sees exactly this text, so
 * the local policy reads its evidence through the same window a hosted model would.
 */

/** Characters of one tool result in the transcript. */
export const TOOL_RESULT_BUDGET = 8_000;
/** Long strings are shortened to this many characters before rows are dropped. */
const SHORT_STRING = 600;
/** Keys that help a person debug but say nothing a model needs; dropped first. */
const VERBOSE_KEYS = new Set([
  'compiled',
  'age_buckets',
  'gaps',
  'filters_applied',
  'ignored_params',
  'audience_applied',
]);

/** The transcript text of a tool's result: `{ok, output}` or `{ok: false, error}` as JSON, within budget. */
export function toolResultContent(
  result: InvocationResult | { ok: false; error: { code: string; message: string } },
  budget = TOOL_RESULT_BUDGET,
): string {
  const full = JSON.stringify(result);
  if (full.length <= budget) return full;
  const notes: string[] = [];
  let value = dropVerbose(result);
  notes.push('debug fields (compiled SQL, coverage buckets) dropped');
  let text = JSON.stringify(value);
  if (text.length > budget && showsItsResults(value)) {
    value = withoutResultRows(value);
    notes.push('output.results dropped: the same rows are in output.blocks, and a citation re-runs the analysis');
    text = JSON.stringify(value);
  }
  if (text.length > budget) {
    value = shortenStrings(value);
    notes.push(`strings over ${SHORT_STRING} characters shortened (ending in …)`);
    text = JSON.stringify(value);
  }
  // Then drop rows from the end of the longest array until it fits.
  const totals = new Map<unknown[], number>();
  while (text.length > budget) {
    const cut = dropLastOfLongestArray(value, totals);
    if (!cut) break;
    notes.push(`${cut.path}: kept ${cut.kept} of ${cut.total}`);
    text = JSON.stringify(withNote(value, notes));
  }
  const noted = JSON.stringify(withNote(value, dedupeNotes(notes)));
  return noted.length <= budget ? noted : `${noted.slice(0, budget - 40)}… [cut at ${budget} characters]`;
}

/**
 * An analysis's output (functions/analyses/analysis.ts) carries every row twice: in `results`, for a
 * citation's re-run to compare with, and in the tables of `blocks`, which are what an answer shows.
 * The verifier re-runs the analysis itself and never reads the transcript's copy, so over budget the
 * `results` copy goes before any table loses a row — else whole tables at the end of `blocks` (the
 * deals of an account, the champions who left) are dropped while their duplicates stay.
 */
function showsItsResults(value: unknown): boolean {
  const output = (value as { output?: unknown }).output;
  if (typeof output !== 'object' || output === null) return false;
  const { blocks, results } = output as { blocks?: unknown; results?: unknown };
  return (
    Array.isArray(blocks) &&
    blocks.some((b) => (b as { kind?: unknown } | null)?.kind === 'table') &&
    typeof results === 'object' &&
    results !== null &&
    !Array.isArray(results)
  );
}

function withoutResultRows(value: unknown): unknown {
  const { output, ...rest } = value as { output: Record<string, unknown> };
  const { results: _results, ...kept } = output;
  return { ...rest, output: kept };
}

function withNote(value: unknown, notes: string[]): unknown {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? { ...(value as object), _cut: dedupeNotes(notes).join('; ') }
    : value;
}

/** Keep the last note per array path (its final kept count) and every other note once. */
function dedupeNotes(notes: string[]): string[] {
  const byKey = new Map<string, string>();
  for (const note of notes) byKey.set(note.includes(': kept ') ? note.slice(0, note.indexOf(': kept ')) : note, note);
  return [...byKey.values()];
}

function dropVerbose(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(dropVerbose);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([k]) => !VERBOSE_KEYS.has(k))
      .map(([k, v]) => [k, dropVerbose(v)]),
  );
}

function shortenStrings(value: unknown): unknown {
  if (typeof value === 'string') return value.length > SHORT_STRING ? `${value.slice(0, SHORT_STRING)}…` : value;
  if (Array.isArray(value)) return value.map(shortenStrings);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, shortenStrings(v)]));
}

/** Remove the last element of the longest array (by serialized size) anywhere in `value`, in place; `totals` remembers each array's first length. */
function dropLastOfLongestArray(
  value: unknown,
  totals: Map<unknown[], number>,
): { path: string; kept: number; total: number } | null {
  let best: { array: unknown[]; path: string; size: number } | null = null;
  const visit = (v: unknown, path: string) => {
    if (Array.isArray(v)) {
      const size = JSON.stringify(v).length;
      if (v.length > 0 && (!best || size > best.size)) best = { array: v, path, size };
      v.forEach((item, i) => visit(item, `${path}[${i}]`));
    } else if (typeof v === 'object' && v !== null) {
      for (const [k, child] of Object.entries(v)) visit(child, path ? `${path}.${k}` : k);
    }
  };
  visit(value, '');
  const found = best as { array: unknown[]; path: string } | null;
  if (!found) return null;
  const total = totals.get(found.array) ?? found.array.length;
  totals.set(found.array, total);
  found.array.pop();
  return { path: found.path || '(root)', kept: found.array.length, total };
}

/** Parse a tool message's content back into its result (the local policy reads its evidence this way). */
export function parseToolContent(
  content: string,
): { ok: true; output: unknown } | { ok: false; error: { code: string; message: string } } | null {
  try {
    const parsed = JSON.parse(content) as { ok?: unknown };
    if (parsed && typeof parsed === 'object' && typeof parsed.ok === 'boolean')
      return parsed as ReturnType<typeof parseToolContent>;
  } catch {
    // A result cut mid-JSON is not evidence; the caller treats it as unreadable.
  }
  return null;
}

/** The tool calls an assistant message made, and the result message answering each (when there is one). */
export function toolExchanges(messages: readonly AgentMessage[]): { call: ToolCall; content: string | null }[] {
  const results = new Map<string, string>();
  for (const m of messages) if (m.role === 'tool') results.set(m.tool_call_id, m.content);
  const exchanges: { call: ToolCall; content: string | null }[] = [];
  for (const m of messages) {
    if (m.role !== 'assistant') continue;
    for (const call of m.tool_calls ?? []) exchanges.push({ call, content: results.get(call.id) ?? null });
  }
  return exchanges;
}

/**
 * The searches a run made and how many results each found, from its transcript (no statement is
 * read for them): every tool call whose result lists `results`; an aggregate whose one row counts 0
 * found nothing. A result cut to fit the transcript
 * counts what it held before the cut (its note says so), so an array emptied to fit never reads as a
 * search that found nothing.
 */
export function searchesIn(messages: readonly AgentMessage[]): { request: Record<string, unknown>; results: number }[] {
  return toolExchanges(messages).flatMap(({ call, content }) => {
    const parsed = content === null ? null : parseToolContent(content);
    if (!parsed?.ok || !parsed.output || typeof parsed.output !== 'object') return [];
    const output = parsed.output as { results?: unknown };
    if (!Array.isArray(output.results)) return [];
    const note = (parsed as { _cut?: unknown })._cut;
    const cut = typeof note === 'string' ? /(?:^|; )output\.results: kept \d+ of (\d+)/.exec(note) : null;
    const rows = output.results as Record<string, unknown>[];
    const found = cut ? Number(cut[1]) : countsNothing(rows) ? 0 : rows.length;
    return [{ request: call.arguments, results: found }];
  });
}
