import { isOnTopic, termsHeld, topicAskedOf } from '../agents/index.js';
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
 * within it, then interleaved by that score, cut to the limit. What is returned is on the query's
 * topic (onTopic): nearest neighbours by meaning exist for any query, about anything or nothing.
 */
export async function searchSources(
  ctx: OperationContext,
  query: EvidenceQuery,
  sourceTypesAsked: readonly string[] | undefined,
): Promise<{
  items: EvidenceItem[];
  notes: string[];
  searched: string[];
  offTopic: number;
  /** Each of the query's topical words, its weight and whether any returned snippet holds it; null without a topic. */
  coverage: TermCoverage[] | null;
}> {
  const sources = sourcesFor(sourceTypesAsked);
  // A type narrower than a source (conversations/email) is filtered after the source answers, so read more to fill the limit.
  const finer = (sourceTypesAsked ?? []).some((t) => t.includes('/'));
  const asked = finer ? { ...query, limit: Math.min(query.limit * FINER_TYPE_READ_FACTOR, 200) } : query;
  const answers = await Promise.all(sources.map((s) => s.search(ctx, asked)));
  const keep = (item: EvidenceItem) =>
    !sourceTypesAsked ||
    sourceTypesAsked.length === 0 ||
    sourceTypesAsked.some((t) => matchesSourceType(item.origin, t));
  const found = answers.flatMap((a) => a.items.filter(keep));
  // Judged only when there is something to judge: the names in the query cost a statement, and an
  // agent's knowledge search over a workspace with no documents (every chat run's) finds nothing.
  const judge = found.length > 0 ? await topicJudge(ctx, query.query) : null;
  const { items: onTopic, offTopic } = onTopicOnly(found, judge);
  const items = onTopic
    .sort((a, b) => b.score - a.score || a.origin.localeCompare(b.origin) || a.id.localeCompare(b.id))
    .slice(0, query.limit);
  const notes = answers.flatMap((a) => a.notes);
  if (offTopic > 0 && judge)
    notes.push(
      `${offTopic} of the ${found.length} matches found were left out: near the query by meaning or words, but about something other than “${judge.label}”.`,
    );
  return { items, notes, searched: sources.map((s) => s.name), offTopic, coverage: judge?.coverage(items) ?? null };
}

export interface TermCoverage {
  word: string;
  weight: number;
  found: boolean;
}

interface TopicJudge {
  label: string;
  isOnTopic(text: string): boolean;
  coverage(items: readonly EvidenceItem[]): TermCoverage[];
}

/**
 * The answers' own relevance check (the agents' relevance module: the query's salient words, the
 * names of accounts and contacts in it taken out): null when the query has no topic to judge by
 * (a bare account name, only scaffolding words), and then nothing is left out.
 */
async function topicJudge(ctx: OperationContext, query: string): Promise<TopicJudge | null> {
  const topic = await topicAskedOf(ctx.services.db, ctx.caller.workspaceId, query);
  if (!topic) return null;
  return {
    label: topic.label,
    isOnTopic: (text) => isOnTopic(topic, text),
    coverage(items) {
      const held = new Set(items.flatMap((item) => item.snippets.flatMap((snippet) => termsHeld(topic, snippet))));
      return topic.terms.map((t) => ({ word: t.word, weight: t.weight, found: held.has(t.stem) }));
    },
  };
}

/**
 * Each item keeps the snippets (and their refs) that are about the topic; an item with none is
 * left out and counted. Refs pair with snippets by position in every source.
 */
function onTopicOnly(items: readonly EvidenceItem[], judge: TopicJudge | null) {
  if (!judge) return { items: [...items], offTopic: 0 };
  let offTopic = 0;
  const kept: EvidenceItem[] = [];
  for (const item of items) {
    const held = item.snippets.flatMap((snippet, i) => (judge.isOnTopic(snippet) ? [i] : []));
    if (held.length === 0) {
      offTopic++;
      continue;
    }
    kept.push({
      ...item,
      snippets: held.map((i) => item.snippets[i] ?? ''),
      refs: item.refs.length === item.snippets.length ? held.flatMap((i) => item.refs[i] ?? []) : item.refs,
    });
  }
  return { items: kept, offTopic };
}
