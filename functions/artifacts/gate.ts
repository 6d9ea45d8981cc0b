import { and, eq } from 'drizzle-orm';
import type { Queryable } from '../../platform/db/port.js';
import { runToolCalls } from '../../schema/agents.js';
import type { AnswerDraft, GroundingReport } from '../agents/answer.js';
import { numbersIn, verifyAnswer } from '../agents/index.js';
import { AgentRunInputSchema } from '../agents/index.js';
import type { InvocationResult, RunContext } from '../invoke.js';

/**
 * The document commit gate (spec: Routines, "Document commit gate"), in the spec's order:
 *   1. the run was started with `write_outputs: true` (a routine's config; a chat run's write was
 *      approved by a person, or proposed) — else the commit is refused (`outputs_disabled`);
 *   2. if a theme read failed during the run the commit is blocked (`degraded_read`);
 *   3. auto-promotion needs every digit the document states verified against cells of queries run
 *      earlier in the same run (the grounding verifier, with the run's earlier results as backing);
 *      otherwise, or when the run's agent is workspace-authored, or when no run wrote it, the
 *      version lands `proposed` for an editor to promote.
 */

export type GateOutcome =
  | { kind: 'refused'; reason: 'outputs_disabled' | 'degraded_read'; message: string }
  | {
      kind: 'commit';
      status: 'published' | 'proposed';
      reason: string | null;
      document: AnswerDraft;
      grounding: GroundingReport;
    };

export interface GateInput {
  db: Queryable;
  workspaceId: string;
  run: RunContext | undefined;
  document: AnswerDraft;
  rerun(query: Record<string, unknown>): Promise<InvocationResult>;
  /** When the document is written (ISO 8601): the time its run's ask is judged at. */
  askedAt: string;
}

export async function passGate(input: GateInput): Promise<GateOutcome> {
  const runInput = input.run ? AgentRunInputSchema.safeParse(input.run.input) : null;
  const routine = runInput?.success ? runInput.data.routine : null;
  if (routine && !routine.write_outputs) {
    return {
      kind: 'refused',
      reason: 'outputs_disabled',
      message: 'This routine was started with write_outputs: false: it may not commit documents.',
    };
  }
  const earlier = input.run ? await earlierSearches(input.db, input.run.id) : [];
  if (earlier.some(themeReadFailed)) {
    return {
      kind: 'refused',
      reason: 'degraded_read',
      message: 'A theme read failed during this run, so its documents are not committed (degraded_read).',
    };
  }
  const backing = new Set<number>();
  for (const { request, result } of earlier) {
    numbersIn(request, backing);
    if (result.ok) numbersIn((result.output as { results?: unknown }).results ?? [], backing);
  }
  const verified = await verifyAnswer(input.document, {
    db: input.db,
    workspaceId: input.workspaceId,
    rerun: input.rerun,
    backing: [...backing],
    // A run's document answers the run's ask (a routine's prompt, a chat message): its quotes must be about it.
    ...(runInput?.success ? { question: { text: runInput.data.message, asked_at: input.askedAt } } : {}),
  });
  const document: AnswerDraft = { text: verified.text, content_blocks: verified.content_blocks, follow_ups: [] };
  const reasons: string[] = [];
  if (!input.run) reasons.push('written outside a run: a person promotes it');
  if (verified.grounding.numbers.unverified.length > 0)
    reasons.push(`unverified numbers: ${verified.grounding.numbers.unverified.join(', ')}`);
  if (verified.grounding.problems.length > 0) reasons.push(`blocks removed: ${verified.grounding.problems.join('; ')}`);
  if (runInput?.success && runInput.data.agent.authored_by === 'tenant')
    reasons.push(`written by a workspace agent (${runInput.data.agent.slug}): a person promotes it`);
  return {
    kind: 'commit',
    status: reasons.length === 0 ? 'published' : 'proposed',
    reason: reasons.length > 0 ? reasons.join(' | ') : null,
    document,
    grounding: verified.grounding,
  };
}

interface EarlierSearch {
  request: Record<string, unknown>;
  result: InvocationResult;
}

/** The search calls the run made so far, from its tool-call journal (full results, not the transcript's cut). */
async function earlierSearches(db: Queryable, runId: string): Promise<EarlierSearch[]> {
  const rows = await db
    .select({ arguments: runToolCalls.arguments, result: runToolCalls.result })
    .from(runToolCalls)
    .where(and(eq(runToolCalls.runId, runId), eq(runToolCalls.tool, 'search_query')));
  return rows.map((r) => ({ request: r.arguments, result: r.result as unknown as InvocationResult }));
}

/** A read of the theme index (the semantic lane's fallback store) that failed. */
function themeReadFailed({ result }: EarlierSearch): boolean {
  if (!result.ok) return false;
  const corpus = (result.output as { corpus?: { store?: string; empty_reason?: string } }).corpus;
  return corpus?.store === 'theme_index' && corpus.empty_reason === 'read_failed';
}
