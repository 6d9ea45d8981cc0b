import { TOOL_RESULT_BUDGET } from '../agents/index.js';
import type { AnalysisOutput } from './analysis.js';

/**
 * An analysis composed from as many of its rows as fit one agent tool result. A model reads the
 * analysis through that window (functions/agents/transcript.ts), and a cut made there drops from the
 * longest array — the blocks themselves, a whole table at a time — so the analysis cuts its own rows
 * first, table by table in the order given, keeping a few of each before cutting the next further.
 * Totals are computed over every row before, so they stay whole.
 */

type Row = Record<string, unknown>;

/** The room of one tool result, less the envelope around the output and a cut's note. */
const ROOM = TOOL_RESULT_BUDGET - 400;
/** Rows each table keeps before the next one is cut. */
const KEPT = 5;

export function fittedToToolResult<K extends string>(
  rows: Record<K, Row[]>,
  cutOrder: readonly K[],
  compose: (rows: Record<K, Row[]>) => AnalysisOutput,
): AnalysisOutput {
  const kept = Object.fromEntries(Object.entries(rows).map(([k, v]) => [k, [...(v as Row[])]])) as Record<K, Row[]>;
  let out = compose(kept);
  while (JSON.stringify(out).length > ROOM) {
    const next = cutOrder.find((k) => kept[k].length > KEPT) ?? cutOrder.find((k) => kept[k].length > 0);
    if (!next) break;
    kept[next].pop();
    out = compose(kept);
  }
  return out;
}

/** A cited request limited to the rows its table kept when cut to fit, so a re-run reads those rows. */
export const limitedTo = <Q extends Record<string, unknown> | null>(query: Q, kept: number, read: number): Q =>
  query && kept < read ? { ...query, limit: Math.max(kept, 1) } : query;
