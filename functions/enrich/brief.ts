import type { ExternalSearchOutcome } from '../../platform/external-search/port.js';
import type { AnswerDraft, BlockDraft } from '../agents/answer.js';
import { verifyAnswer } from '../agents/index.js';
import type { Services } from '../services.js';
import type { Brief, Evidence } from './schemas.js';
import type { Subject } from './subject.js';

/** Quotes a brief carries at most, and salient terms per side of the divergence map. */
const BRIEF_QUOTES = 8;
const DIVERGENCE_TERMS = 8;

const STOPWORDS = new Set(
  'about above after again against because been before being below between both could does doing down during each from further have having here hers herself himself into itself just more most myself once only other ourselves over same should some such than that their theirs them themselves then there these they this those through under until very were what when where which while whom with would your yours yourself yourselves also will really think know want need like going make sure thing things yeah okay right well much many even still back time year years lets that'.split(
    ' ',
  ),
);

/** Lower-case words of four letters or more, stopwords out, counted. */
function termCounts(texts: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const text of texts)
    for (const word of text.toLowerCase().match(/[a-z][a-z-]{3,}/g) ?? [])
      if (!STOPWORDS.has(word)) counts.set(word, (counts.get(word) ?? 0) + 1);
  return counts;
}

/** The most frequent terms of one side that the other side never uses (ties by the term, so it is stable). */
function onlyIn(side: Map<string, number>, other: Map<string, number>): string[] {
  return [...side.entries()]
    .filter(([term]) => !other.has(term))
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .slice(0, DIVERGENCE_TERMS)
    .map(([term]) => term);
}

/**
 * The full brief, written from the first-party evidence and the external search's results and
 * passed through the grounding verifier (functions/agents/grounding.ts) before anyone sees it:
 * every quote must be verbatim in its transcript turn in this workspace (a topic's quotes must also
 * be about the topic), and the prose states no number (counts live in `evidence` and the
 * structured fields, where they were read). Market facts are URL citations with the provider's
 * snippet, never restated as the service's own claims. What the verifier removes is gone from the
 * brief and counted in `grounding`.
 */
export async function composeBrief(
  services: Services,
  workspaceId: string,
  subject: Subject,
  evidence: Evidence,
  external: ExternalSearchOutcome,
  now: Date,
): Promise<Brief> {
  const quotes: BlockDraft[] = evidence.utterances.slice(0, BRIEF_QUOTES).flatMap((u) =>
    u.turn_id
      ? [
          {
            kind: 'quote' as const,
            text: u.text,
            source: {
              interaction_id: u.interaction_id,
              turn_id: u.turn_id,
              speaker: u.speaker_name,
              occurred_at: u.occurred_at,
              account: u.account?.name ?? null,
            },
            stance: 'context' as const,
          },
        ]
      : [],
  );
  const sources: BlockDraft[] = external.results.map((r) => ({
    kind: 'citation' as const,
    cite: 'url' as const,
    ref: r.url,
    label: r.title.slice(0, 300),
    snippet: r.snippet ? r.snippet.slice(0, 1_000) : null,
  }));
  const voice = quotes.map((q) => (q.kind === 'quote' ? `> ${q.text}` : '')).join('\n\n');
  const draft: AnswerDraft = {
    text: [`# ${subject.label}`, '## What they said to us', voice || '_Nothing in this workspace yet._'].join('\n\n'),
    content_blocks: [...quotes, ...sources],
    follow_ups: [],
  };
  const verified = await verifyAnswer(draft, {
    db: services.db,
    workspaceId,
    // A brief holds no table or metric: nothing to re-run.
    rerun: async () => ({ ok: false, error: { code: 'invalid_argument', message: 'A brief re-runs no query.' } }),
    ...(subject.kind === 'topic' ? { question: { text: subject.topic!, asked_at: now.toISOString() } } : {}),
  });
  const kept = verified.content_blocks;
  const keptQuotes = kept.filter((b) => b.kind === 'quote');
  const keptSources = kept.filter((b) => b.kind === 'citation' && b.cite === 'url');
  const internal = termCounts(keptQuotes.map((b) => (b.kind === 'quote' ? b.text : '')));
  const market = termCounts(external.results.map((r) => `${r.title} ${r.snippet}`));
  const marketText =
    external.status === 'ok'
      ? keptSources.map((b) => (b.kind === 'citation' ? `- [${b.label}](${b.ref})` : '')).join('\n') ||
        '_The market search found nothing._'
      : external.status === 'not_configured'
        ? '_No external search is configured (EXTERNAL_SEARCH_URL): this brief holds the customer half only._'
        : '_The external search failed; this brief holds the customer half only._';
  const customerVoice = keptQuotes.map((b) => (b.kind === 'quote' ? `> ${b.text}` : '')).join('\n\n');
  return {
    subject: { kind: subject.kind, key: subject.key, label: subject.label },
    summary:
      keptQuotes.length > 0
        ? `${subject.label}: what they said to us in their own words, beside what the market sources say.`
        : `${subject.label}: nothing in this workspace's conversations yet; the market sources only.`,
    sections: { customer_voice: customerVoice, market: marketText },
    content_blocks: kept,
    citations: [
      ...keptQuotes.map((b) => ({
        kind: 'utterance' as const,
        ref: b.kind === 'quote' ? (b.source.turn_id ?? b.source.interaction_id) : '',
        label: b.kind === 'quote' ? `${b.source.speaker ?? 'customer'}, ${b.source.occurred_at ?? ''}` : '',
      })),
      ...keptSources.map((b) => ({
        kind: 'url' as const,
        ref: b.kind === 'citation' ? b.ref : '',
        label: b.kind === 'citation' ? b.label : '',
      })),
    ],
    divergence_map: { internal_only: onlyIn(internal, market), market_only: onlyIn(market, internal) },
    external: {
      status: external.status,
      provider: external.provider,
      detail: external.status === 'failed' ? external.detail : null,
    },
    first_party_matched_count: evidence.matched_count,
    grounding: verified.grounding,
  };
}

/** The brief as a document (artifacts): its markdown and blocks, with the verifier's report. */
export function briefDocument(brief: Brief): AnswerDraft {
  return {
    text: [
      `# ${brief.subject.label}`,
      brief.summary,
      '## What they said to us',
      brief.sections.customer_voice || '_Nothing yet._',
      '## The market',
      brief.sections.market,
    ].join('\n\n'),
    content_blocks: brief.content_blocks,
    follow_ups: [],
  };
}
