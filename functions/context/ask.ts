import { and, count, eq, isNotNull } from 'drizzle-orm';
import { MAX_WAIT_MS, waitForRunChange } from '../../queues/run-reads.js';
import { isTerminal, type RunRow } from '../../queues/run-store.js';
import { themes } from '../../schema/warehouse-semantic.js';
import { RESEARCH_KIND, startAgentRun } from '../agents/index.js';
import type { OperationContext } from '../registry.js';
import { readMemoryRows } from '../memory/index.js';
import { EVIDENCE_SOURCES } from './sources.js';

/**
 * `ask`: a question answered synchronously by the one agent loop (functions/agents/): a research
 * run by the library agent `researcher` at the quick tier, with no pauses, whose answer passed the
 * grounding verifier before it was committed. This file writes no answer of its own: it starts the
 * run, holds until it ends (at most ASK_WAIT_MS), and returns the run's verified text; then the
 * workspace memory recalled for the question, quoted verbatim with its ids (evidence, not prose).
 */

/** How long ask holds for the run (the spec's longest read hold); past it, the run keeps going and the answer says where to read it. */
export const ASK_WAIT_MS = MAX_WAIT_MS;

export interface AskOutcome {
  answer: string;
  substrateStats: { evidenceSearched: number; clustersSearched: number; metricsAvailable: number };
  status: 'complete' | 'partial' | 'in_progress' | 'failed';
  run_id: string;
  chat_id: string;
  sources_searched: string[];
  memory: { id: string; block_id: string; text: string; source: string; company_name: string | null }[];
}

interface RunAnswer {
  text?: string;
  partial?: boolean;
  content_blocks?: { kind?: string; id?: string; text?: string; source?: { memory_id?: string } }[];
}

export async function ask(ctx: OperationContext, question: string): Promise<AskOutcome> {
  const { services, caller } = ctx;
  const handles = await startAgentRun(services, caller, {
    kind: RESEARCH_KIND,
    input: question,
    name: question,
    agent: 'researcher',
    onQuestion: 'auto',
    pauses: { question: false, approval: false, budget: false },
    depth: 'quick',
    trigger: ctx.origin === 'mcp' ? 'mcp' : 'api',
  });
  const deadline = Date.now() + ASK_WAIT_MS;
  let row: RunRow | null = null;
  while (Date.now() < deadline && !ctx.signal.aborted) {
    row = await waitForRunChange(services, caller.workspaceId, handles.run_id, {
      waitMs: deadline - Date.now(),
      kinds: [RESEARCH_KIND],
      signal: ctx.signal,
    });
    if (isTerminal(row.status)) break;
  }
  const sizes = await Promise.all(EVIDENCE_SOURCES.map((s) => s.size(ctx)));
  const [clusters] = await services.db
    .select({ n: count() })
    .from(themes)
    .where(
      and(
        eq(themes.workspaceId, caller.workspaceId),
        eq(themes.embedder, services.embedder.id),
        isNotNull(themes.embedding),
      ),
    );
  const state = (row?.state ?? {}) as { answer?: RunAnswer | null };
  const answer = row?.status === 'complete' ? (state.answer ?? null) : null;
  const status: AskOutcome['status'] = answer
    ? answer.partial
      ? 'partial'
      : 'complete'
    : row && isTerminal(row.status)
      ? 'failed'
      : 'in_progress';
  const text =
    answer?.text ??
    (status === 'failed'
      ? `The research run ${handles.run_id} ended without an answer (${row?.status ?? 'unknown'}${row?.error ? `: ${(row.error as { message?: string }).message ?? ''}` : ''}).`
      : `The research run ${handles.run_id} is still working after ${ASK_WAIT_MS / 1000} s; read its answer at GET /research/${handles.run_id}.`);
  // The memory the verified answer quotes: its memory_quote blocks, each with the remembered row's id.
  const memoryBlocks = (answer?.content_blocks ?? []).flatMap((b) =>
    b.kind === 'memory_quote' && b.id && b.text && b.source?.memory_id
      ? [{ blockId: b.id, text: b.text, memoryId: b.source.memory_id }]
      : [],
  );
  const rows = await readMemoryRows(
    services.db,
    caller.workspaceId,
    memoryBlocks.map((b) => b.memoryId),
  );
  const memory = memoryBlocks.flatMap((b) => {
    const row = rows.get(b.memoryId);
    return row
      ? [{ id: b.memoryId, block_id: b.blockId, text: b.text, source: row.source, company_name: row.companyName }]
      : [];
  });
  return {
    answer: text,
    substrateStats: {
      evidenceSearched: sizes.reduce((a, b) => a + b, 0),
      clustersSearched: Number(clusters?.n ?? 0),
      metricsAvailable: (answer?.content_blocks ?? []).filter((b) => b.kind === 'metric' || b.kind === 'table').length,
    },
    status,
    run_id: handles.run_id,
    chat_id: handles.chat_id,
    sources_searched: EVIDENCE_SOURCES.map((s) => s.name),
    memory,
  };
}
