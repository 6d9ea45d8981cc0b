import type { ArtifactType } from './definition.js';
import type { AccountFacts } from './grading-context.js';
import { asksIn, HYPE_WORDS, sentencesOf, sharedStems, splitSubject, stemsOf, wordsOf } from './text.js';

/**
 * The local rewriter: fixes what the checks found, with only what the run knows (the customers'
 * recurring phrases, the account's name). It never adds a fact, number or claim that is not in the
 * draft, the quotes or the account's record; every edit is listed in `what_changed`.
 */
export interface RewriteInput {
  target: 'message' | 'prompt';
  text: string;
  failed: string[];
  artifactType: ArtifactType | null;
  audience: string | null;
  account: AccountFacts | null;
  customerPhrases: string[];
}

const MAX_WORDS: Record<ArtifactType | 'unknown', number> = {
  email: 200,
  linkedin: 120,
  call_script: 300,
  landing_page: 900,
  ad: 60,
  other: 300,
  unknown: 300,
};
const FILLER_OPENERS = [
  /^i hope (this|the) (email|message|note) finds you well[.!]?$/i,
  /^my name is\b/i,
  /^just (following up|checking in)\b/i,
  /^per my last email\b/i,
];

export function rewriteLocally(input: RewriteInput): { text: string; what_changed: string[] } {
  return input.target === 'prompt' ? rewritePrompt(input) : rewriteMessage(input);
}

/** A message as its parts: subject, greeting line, paragraphs of sentences, sign-off. */
interface MessageParts {
  subject: string | null;
  greeting: string | null;
  paragraphs: string[][];
  signoff: string | null;
}

const GREETING = /^(hi|hello|hey|dear|good (morning|afternoon|evening))\b/i;
const SIGNOFF = /^(thanks|thank you|best|regards|kind regards|cheers|sincerely|all the best|talk soon|warmly)\b/i;

export function parseMessage(text: string): MessageParts {
  const { subject, body } = splitSubject(text);
  const blocks = body
    .split(/\n\s*\n/)
    .map((b) => b.trim())
    .filter((b) => b.length > 0);
  let greeting: string | null = null;
  let signoff: string | null = null;
  if (blocks.length > 0) {
    const firstLine = (blocks[0] ?? '').split('\n')[0] ?? '';
    if (GREETING.test(firstLine) && wordsOf(firstLine).length <= 8) {
      greeting = firstLine.trim();
      const rest = (blocks[0] ?? '').split('\n').slice(1).join(' ').trim();
      if (rest) blocks[0] = rest;
      else blocks.shift();
    }
  }
  if (blocks.length > 0) {
    const last = blocks[blocks.length - 1] ?? '';
    const lines = last.split('\n');
    const at = lines.findIndex((l) => SIGNOFF.test(l.trim()) && wordsOf(l).length <= 6);
    if (at >= 0) {
      signoff = lines.slice(at).join('\n').trim();
      const before = lines.slice(0, at).join(' ').trim();
      if (before) blocks[blocks.length - 1] = before;
      else blocks.pop();
    }
  }
  return { subject, greeting, paragraphs: blocks.map((b) => sentencesOf(b.replace(/\s*\n\s*/g, ' '))), signoff };
}

export function renderMessage(parts: MessageParts): string {
  const body = [
    parts.greeting,
    ...parts.paragraphs.filter((p) => p.length > 0).map((p) => p.join(' ')),
    parts.signoff,
  ].filter((x): x is string => Boolean(x?.trim()));
  return `${parts.subject ? `Subject: ${parts.subject}\n\n` : ''}${body.join('\n\n')}`;
}

const escapeRegExp = (s: string) => s.replace(/[-/\\^$*+?.()|[\]{}]/g, '\\$&');

function rewriteMessage(input: RewriteInput): { text: string; what_changed: string[] } {
  const changes: string[] = [];
  const parts = parseMessage(input.text);
  const failed = new Set(input.failed);
  const sentenceCount = () => parts.paragraphs.reduce((n, p) => n + p.length, 0);

  if (failed.has('no_hype') || failed.has('tone')) {
    const before = sentenceCount();
    parts.paragraphs = parts.paragraphs.map((p) => p.filter((s) => !FILLER_OPENERS.some((r) => r.test(s.trim()))));
    const removed = before - sentenceCount();
    if (removed > 0) changes.push(`Removed ${removed} filler opener${removed === 1 ? '' : 's'}.`);
    const clean = (text: string): string => {
      let out = text;
      for (const word of HYPE_WORDS) out = out.replace(new RegExp(`\\b${escapeRegExp(word)}\\b\\s*`, 'gi'), '');
      return out
        .replace(/!{2,}/g, '.')
        .replace(/!/g, '.')
        .replace(/\b([A-Z]{4,})\b/g, (w) => w.charAt(0) + w.slice(1).toLowerCase())
        .replace(/\s{2,}/g, ' ')
        .replace(/\s+([.,?])/g, '$1')
        .trim();
    };
    const dropped = HYPE_WORDS.filter(
      (w) => input.text.toLowerCase().includes(w) && !FILLER_OPENERS.some((r) => r.test(w)),
    );
    parts.paragraphs = parts.paragraphs.map((p) => p.map(clean).filter((s) => wordsOf(s).length > 0));
    if (parts.subject) parts.subject = clean(parts.subject).replace(/[.]+$/, '') || null;
    if (dropped.length > 0) changes.push(`Dropped hype and filler: ${dropped.map((w) => `"${w}"`).join(', ')}.`);
    if (/!|\b[A-Z]{4,}\b/.test(input.text)) changes.push('Toned down exclamation marks and capitals.');
  }

  if (
    (failed.has('uses_customer_language') || failed.has('customer_language') || failed.has('relevance')) &&
    input.customerPhrases.length > 0
  ) {
    const current = renderMessage(parts);
    const lower = current.toLowerCase();
    const topic = stemsOf(current);
    // Only a phrase about what the message is about: borrowing an unrelated phrase would be noise.
    const phrase = input.customerPhrases.find((p) => !lower.includes(p) && sharedStems(stemsOf(p), topic).length > 0);
    if (!phrase)
      changes.push(
        'No recurring customer phrase is about what this message says; their words have to come from a closer read of the quotes.',
      );
    if (phrase) {
      const first = parts.paragraphs[0] ?? [];
      first.splice(Math.min(1, first.length), 0, `Other teams we speak with keep bringing up "${phrase}".`);
      if (parts.paragraphs.length === 0) parts.paragraphs.push(first);
      changes.push(`Used the customers' own words: "${phrase}" (it recurs across the retrieved quotes).`);
    }
  }

  if (
    (failed.has('specific_fact') || failed.has('specificity')) &&
    input.account &&
    !renderMessage(parts).toLowerCase().includes(input.account.name.toLowerCase())
  ) {
    if (parts.greeting && /^(hi|hello|hey)\s+(there|all|team|everyone)\b/i.test(parts.greeting)) {
      parts.greeting = `Hi ${input.account.name} team,`;
      changes.push(`Addressed the account by name (${input.account.name}).`);
    }
  }

  if (failed.has('has_call_to_action') || failed.has('call_to_action')) {
    const all = parts.paragraphs.flat();
    const questions = all.filter((s) => s.trim().endsWith('?'));
    if (questions.length >= 3) {
      const last = questions[questions.length - 1];
      parts.paragraphs = parts.paragraphs.map((p) => p.filter((s) => !s.trim().endsWith('?') || s === last));
      changes.push(`Kept one question ("${last?.trim()}") instead of ${questions.length}.`);
    } else {
      const asks = asksIn(all.join(' '));
      const lastAsk = asks.at(-1) ?? '';
      if (asks.length === 0 || !/\b(\d+|minutes?|call|next week)\b/i.test(lastAsk)) {
        // A vague ask ("Let me know.") is replaced by one concrete ask, not stacked with it.
        const vague = (x: string) =>
          x === lastAsk || /^(let me know|thoughts|any thoughts|interested)[.?!]*$/i.test(x.trim());
        parts.paragraphs = parts.paragraphs.map((p) => p.filter((x) => !vague(x)));
        parts.paragraphs = parts.paragraphs.filter((p) => p.length > 0);
        parts.paragraphs.push(['Would a 15-minute call next week be useful?']);
        const replaced =
          lastAsk || all.find((x) => /^(let me know|thoughts|any thoughts|interested)[.?!]*$/i.test(x.trim()));
        changes.push(
          replaced
            ? `Replaced the vague ask ("${replaced.trim()}") with one concrete ask (a 15-minute call next week).`
            : 'Ended with one concrete ask (a 15-minute call next week).',
        );
      }
    }
  }

  const max = MAX_WORDS[input.artifactType ?? 'unknown'];
  const bodyWords = () => wordsOf(parts.paragraphs.flat().join(' ')).length;
  if (bodyWords() > max) {
    const flat = parts.paragraphs.flatMap((p, pi) => p.map((s, si) => ({ s, pi, si })));
    const topic = stemsOf(`${input.customerPhrases.join(' ')} ${input.audience ?? ''}`);
    const keep = new Set<number>([0, flat.length - 1]);
    let words = [...keep].reduce((n, i) => n + wordsOf(flat[i]?.s ?? '').length, 0);
    const ranked = flat
      .map((x, i) => ({ i, relevance: sharedStems(stemsOf(x.s), topic).length, words: wordsOf(x.s).length }))
      .sort((a, b) => b.relevance - a.relevance || a.i - b.i);
    for (const r of ranked) {
      if (keep.has(r.i) || words + r.words > max) continue;
      keep.add(r.i);
      words += r.words;
    }
    const dropped = flat.length - keep.size;
    parts.paragraphs = parts.paragraphs
      .map((p, pi) => p.filter((_, si) => keep.has(flat.findIndex((x) => x.pi === pi && x.si === si))))
      .filter((p) => p.length > 0);
    if (dropped > 0) changes.push(`Cut ${dropped} sentence${dropped === 1 ? '' : 's'} to fit ${max} words.`);
  }

  if (
    input.artifactType === 'email' &&
    (failed.has('subject_line') || !parts.subject || wordsOf(parts.subject).length < 2)
  ) {
    const topic = stemsOf(parts.paragraphs.flat().join(' '));
    const phrase = input.customerPhrases.find((p) => sharedStems(stemsOf(p), topic).length > 0);
    const fresh = phrase
      ? phrase.charAt(0).toUpperCase() + phrase.slice(1)
      : input.account
        ? `${input.account.name} and next steps`
        : null;
    const words = parts.subject ? wordsOf(parts.subject).length : 0;
    if (fresh && (!parts.subject || /^(re|fwd?):/i.test(parts.subject) || words < 2 || words > 9)) {
      parts.subject = fresh;
      changes.push(`Subject line: "${fresh}".`);
    }
  }

  return {
    text: renderMessage(parts),
    what_changed: changes.length > 0 ? changes : ['No change: every check the rewriter can act on already passes.'],
  };
}

function rewritePrompt(input: RewriteInput): { text: string; what_changed: string[] } {
  const failed = new Set(input.failed);
  const lines: string[] = [];
  const changes: string[] = [];
  const add = (line: string, why: string) => {
    lines.push(line);
    changes.push(why);
  };
  if (failed.has('prompt_names_audience') || failed.has('audience'))
    add(`Audience: ${input.audience ?? "name the reader's role, company and situation"}.`, 'Named the audience.');
  if (failed.has('prompt_states_goal'))
    add('Goal: get a reply that agrees to one concrete next step.', 'Stated the goal.');
  if (failed.has('prompt_grounds_in_evidence') || failed.has('grounding')) {
    add(
      `Ground every claim in the customer quotes provided${input.customerPhrases.length ? ` (customers keep saying ${input.customerPhrases.map((p) => `"${p}"`).join(', ')})` : ''}; reuse their words where they fit.`,
      "Asked for the customers' own words as evidence.",
    );
  }
  if (failed.has('prompt_sets_format') || failed.has('format')) {
    const shape =
      input.artifactType === 'linkedin'
        ? 'a LinkedIn message under 120 words'
        : input.artifactType === 'email' || !input.artifactType
          ? 'an email of 60-150 words with a subject line'
          : `a ${input.artifactType.replace('_', ' ')}`;
    add(`Format: ${shape}, ending with one clear ask.`, 'Set length and format.');
  }
  if (failed.has('prompt_forbids_invention') || failed.has('guardrails'))
    add(
      'Do not invent facts, numbers or customer names; use only what the quotes and the account record say.',
      'Forbade invented facts.',
    );
  if (lines.length === 0)
    return { text: input.text, what_changed: ['No change: every check the rewriter can act on already passes.'] };
  return { text: `${input.text.trim()}\n\n${lines.join('\n')}`, what_changed: changes };
}
