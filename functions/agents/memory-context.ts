import { recallMemory } from '../memory/index.js';
import type { Services } from '../services.js';

/** The most remembered texts a run starts with, and the most of the prompt they may take. */
const MAX_MEMORIES = 5;
const MAX_MEMORY_CHARS = 2_000;
/** Least cosine similarity for a memory found only by meaning to count as relevant to the question. */
const MIN_SIMILARITY = 0.2;

/** A memory line of the prompt: `- [memory_id <uuid>] “<text>” (source, company)`; the local policy reads it back. */
export const MEMORY_LINE = /^- \[memory_id ([0-9a-f-]{36})\] “(.*)” \(/;

export interface RecalledMemory {
  /** The prompt section, or null when nothing remembered is relevant to the question. */
  text: string | null;
  ids: string[];
}

/**
 * The workspace's memory relevant to a run's question, read once before the run
 * starts and put in its system message as evidence it may quote (a memory_quote block with the
 * memory_id; the grounding verifier checks the words against that row). Recalled by meaning and words
 * (the memory feature's hybrid recall), kept only when the words matched or the meaning is close
 * (MIN_SIMILARITY), at most MAX_MEMORIES and MAX_MEMORY_CHARS: bounded, scored by relevance, never the
 * whole memory. A recall that fails leaves the run without it (memory is background to a run; its
 * searches are the evidence).
 */
export async function recalledMemoryContext(
  services: Pick<Services, 'db' | 'embedder'>,
  workspaceId: string,
  question: string,
): Promise<RecalledMemory> {
  const recalled = await recallMemory(services.db, services.embedder, workspaceId, {
    query: question.slice(0, 2_000),
    limit: MAX_MEMORIES,
    mode: 'hybrid',
  }).catch(() => null);
  const relevant = (recalled?.hits ?? []).filter(
    (hit) => hit.matched_by.includes('keyword') || (hit.similarity ?? 0) >= MIN_SIMILARITY,
  );
  const lines: string[] = [];
  let used = 0;
  for (const hit of relevant) {
    const text = hit.text.replace(/\s+/g, ' ').trim();
    const line = `- [memory_id ${hit.id}] “${text}” (${hit.source}${hit.company_name ? `, ${hit.company_name}` : ''})`;
    if (used + line.length > MAX_MEMORY_CHARS) break;
    lines.push(line);
    used += line.length;
  }
  if (lines.length === 0) return { text: null, ids: [] };
  return {
    text: [
      'Workspace memory relevant to this question (remembered evidence, most relevant first; to quote one, use a memory_quote block with its verbatim words and source {memory_id}):',
      ...lines,
    ].join('\n'),
    ids: lines.map((l) => MEMORY_LINE.exec(l)?.[1] ?? '').filter(Boolean),
  };
}
