import { z } from 'zod';
import type { InvocationResult } from '../invoke.js';

/**
 * What a table's or metric's `query` may cite, and how the verifier re-runs it as the caller: a
 * `search.query` request, or an analysis operation's own input with the name of the result the cells
 * are (`{operation: "analyses.talk_ratio", input, result: "by_rep"}`). Either way the re-run answers
 * `{results: rows}`, so one comparison serves both. Only read-only analyses may be cited: a citation is
 * data a model wrote, and re-running it must never write.
 */
export const AnalysisCitationSchema = z
  .object({
    operation: z.string().regex(/^analyses\.[a-z][a-z_]*$/),
    input: z.record(z.string(), z.unknown()),
    result: z.string().min(1).max(100),
  })
  .strict();
export type AnalysisCitation = z.infer<typeof AnalysisCitationSchema>;

/** The analysis a query cites, or null for a `search.query` request. */
export function analysisCitationOf(query: Record<string, unknown>): AnalysisCitation | null {
  const cited = AnalysisCitationSchema.safeParse(query);
  return cited.success ? cited.data : null;
}

type Invoke = (operationId: string, input: Record<string, unknown>) => Promise<InvocationResult>;

/** Re-run a cited query as the caller: its rows as `{results}` (null when the analysis has no such result). */
export async function rerunCitedQuery(invoke: Invoke, query: Record<string, unknown>): Promise<InvocationResult> {
  const cited = analysisCitationOf(query);
  if (!cited) return invoke('search.query', query);
  const result = await invoke(cited.operation, cited.input);
  if (!result.ok) return result;
  const rows = (result.output as { results?: Record<string, unknown> } | null)?.results?.[cited.result];
  return { ok: true, output: { results: Array.isArray(rows) ? rows : null } };
}
