import type { OperationContext } from '../registry.js';
import type { EvidenceItem, EvidenceQuery, EvidenceSource } from './evidence.js';
import { NODE_KINDS } from '../../schema/knowledge.js';
import { MEMORY_SOURCES } from '../../schema/memory.js';
import { INTERACTION_KINDS } from '../../schema/warehouse-interactions.js';
import { conversationsSource } from './conversations-source.js';
import { knowledgeSource } from './knowledge-source.js';
import { memorySource } from './memory-source.js';

export type { EvidenceItem, EvidenceQuery, EvidenceSource, SearchMode, SourceAnswer } from './evidence.js';

/**
 * The sources of evidence the knowledge operations search (search, substrate query, ask,
 * explore). Each is one entry here: conversations (the search lanes), the knowledge bank's document
 * nodes, memory (remember); a new source is one more entry, and every operation, its `source_type`
 * values and the `sources_searched` it reports follow.
 */

/** How many times the limit a source reads when a finer type filters its answer. */
const FINER_TYPE_READ_FACTOR = 10;

export const EVIDENCE_SOURCES: readonly EvidenceSource[] = [conversationsSource, knowledgeSource, memorySource];

/** Every `source_type` value: a source's name, or `<source>/<type>`. */
export const sourceTypes = (): string[] =>
  EVIDENCE_SOURCES.flatMap((s) => [s.name, ...s.types.map((t) => `${s.name}/${t}`)]);

export const matchesSourceType = (origin: string, sourceType: string): boolean =>
  origin === sourceType || origin.startsWith(`${sourceType}/`);

/** The sources a `source_type` (or a list of them) reaches; all when none is given. */
export function sourcesFor(sourceTypesAsked: readonly string[] | undefined): EvidenceSource[] {
  if (!sourceTypesAsked || sourceTypesAsked.length === 0) return [...EVIDENCE_SOURCES];
  return EVIDENCE_SOURCES.filter((s) => sourceTypesAsked.some((t) => t === s.name || t.startsWith(`${s.name}/`)));
}

/** Kept for the OpenAPI descriptions: the type vocabularies of the built-in sources. */
export const KNOWN_TYPES = { conversations: INTERACTION_KINDS, knowledge: NODE_KINDS, memory: MEMORY_SOURCES } as const;

/**
 * Search every asked source and merge their answers: each source's items ranked by reciprocal rank
 * within it, then interleaved by that score, cut to the limit.
 */
export async function searchSources(
  ctx: OperationContext,
  query: EvidenceQuery,
  sourceTypesAsked: readonly string[] | undefined,
): Promise<{ items: EvidenceItem[]; notes: string[]; searched: string[] }> {
  const sources = sourcesFor(sourceTypesAsked);
  // A type narrower than a source (conversations/email) is filtered after the source answers, so read more to fill the limit.
  const finer = (sourceTypesAsked ?? []).some((t) => t.includes('/'));
  const asked = finer ? { ...query, limit: Math.min(query.limit * FINER_TYPE_READ_FACTOR, 200) } : query;
  const answers = await Promise.all(sources.map((s) => s.search(ctx, asked)));
  const keep = (item: EvidenceItem) =>
    !sourceTypesAsked ||
    sourceTypesAsked.length === 0 ||
    sourceTypesAsked.some((t) => matchesSourceType(item.origin, t));
  const items = answers
    .flatMap((a) => a.items.filter(keep))
    .sort((a, b) => b.score - a.score || a.origin.localeCompare(b.origin) || a.id.localeCompare(b.id))
    .slice(0, query.limit);
  return { items, notes: answers.flatMap((a) => a.notes), searched: sources.map((s) => s.name) };
}
