import type { StepResult } from '../../../platform/model/port.js';
import type { AnswerDraft, BlockDraft } from '../answer.js';
import { FINAL_ANSWER } from '../tool-names.js';
import type { PolicyContext } from './context.js';

/**
 * The evidence sources' search (the context.search operation, every library agent's tool) narrowed to
 * the knowledge bank's source, and the purpose of its call: the agents reach documents the way the
 * knowledge operations do (functions/context/sources.ts), not through a tool of their own.
 */
export const KNOWLEDGE_TOOL = 'context_search';
export const KNOWLEDGE_PURPOSE = 'knowledge';
/** Least cosine similarity of a node to the ask for the policy to quote it. */
const MIN_SIMILARITY = 0.2;
const MAX_DOCUMENT_QUOTES = 2;
const STOP = new Set(
  'what which when where does about from with that this have there their them they your ours what’s into over under than then also only just more most some such very will would could should shall'.split(
    ' ',
  ),
);

interface Match {
  document_group_id: string;
  document_title: string;
  node_key: string;
  text: string;
  score: number;
}

/** The knowledge search the policy runs beside its first searches: the ask, by meaning, in the documents only. */
export const knowledgeSearchArgs = (ctx: PolicyContext) => ({
  query: ctx.ask.slice(0, 2000),
  mode: 'semantic',
  limit: 5,
  source_type: 'knowledge',
});

interface EvidenceResult {
  title?: unknown;
  snippets?: unknown;
  score?: unknown;
  refs?: { document_group_id?: unknown; node_key?: unknown }[];
}

/** The document nodes among the evidence items context.search returned (a knowledge item names its node in refs). */
function nodeMatches(output: unknown): Match[] {
  const results = (output as { results?: EvidenceResult[] } | null)?.results ?? [];
  return results.flatMap((r) => {
    const ref = r.refs?.[0];
    const text = Array.isArray(r.snippets) ? r.snippets[0] : undefined;
    if (
      typeof ref?.document_group_id !== 'string' ||
      typeof ref.node_key !== 'string' ||
      typeof r.title !== 'string' ||
      typeof text !== 'string' ||
      typeof r.score !== 'number'
    )
      return [];
    return [
      {
        document_group_id: ref.document_group_id,
        node_key: ref.node_key,
        document_title: r.title,
        text,
        score: r.score,
      },
    ];
  });
}

export const salientWords = (text: string): Set<string> =>
  new Set(
    (text.toLowerCase().match(/[a-z][a-z0-9-]{3,}/g) ?? []).filter((w) => !STOP.has(w)).map((w) => w.replace(/s$/, '')),
  );

/**
 * When the plan's answer is ready, add what the workspace's own documents say: the best nodes the
 * knowledge search found that are close to the ask by meaning and share one of its salient words,
 * each quoted verbatim (its best sentence) as a document_quote with its document and node as source,
 * so the grounding verifier checks it against that node. Nothing is added when no node qualifies.
 */
export function withDocumentQuotes(ctx: PolicyContext, step: StepResult): StepResult {
  const final = step.tool_calls.find((c) => c.name === FINAL_ANSWER);
  const result = ctx.results.get(KNOWLEDGE_PURPOSE);
  if (!final || !result?.ok) return step;
  const matches = nodeMatches(result.output).filter((m) => m.score >= MIN_SIMILARITY);
  const askWords = salientWords(ctx.ask);
  const quotes: { match: Match; sentence: string }[] = [];
  for (const match of matches) {
    const sentence = bestSentence(match.text, askWords);
    if (sentence) quotes.push({ match, sentence });
    if (quotes.length === MAX_DOCUMENT_QUOTES) break;
  }
  if (quotes.length === 0) return step;
  const answer = final.arguments as AnswerDraft;
  const blocks: BlockDraft[] = quotes.map(({ match, sentence }) => ({
    kind: 'document_quote',
    text: sentence,
    source: {
      document_group_id: match.document_group_id,
      node_key: match.node_key,
      document_title: match.document_title,
    },
    stance: 'supports',
  }));
  const prose = quotes.map(({ match, sentence }) => `> ${sentence}\n\n\u2014 ${match.document_title}`).join('\n\n');
  const text = `${answer.text}\n\n**From your documents**\n\n${prose}`;
  return {
    ...step,
    tool_calls: step.tool_calls.map((c) =>
      c === final ? { ...c, arguments: { ...answer, text, content_blocks: [...answer.content_blocks, ...blocks] } } : c,
    ),
  };
}

/** The node's sentence sharing most salient words with the ask (verbatim), or null when none shares one. */
export function bestSentence(text: string, askWords: ReadonlySet<string>): string | null {
  let best: { sentence: string; shared: number } | null = null;
  for (const sentence of text.match(/[^.!?]+[.!?]*/g) ?? [text]) {
    const trimmed = sentence.trim();
    if (trimmed.length < 12) continue;
    let shared = 0;
    for (const w of salientWords(trimmed)) if (askWords.has(w)) shared++;
    if (shared > 0 && (!best || shared > best.shared)) best = { sentence: trimmed, shared };
  }
  return best ? best.sentence.slice(0, 2000) : null;
}
