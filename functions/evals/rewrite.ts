import type { ArtifactType } from './definition.js';
import type { AccountFacts } from './grading-context.js';
import { factsIn, isAsk, isVagueAsk, splitSentences } from './sentence-safety.js';
import { HYPE_WORDS, sharedStems, splitSubject, stemsOf, wordsOf } from './text.js';
import { toneDownSentence, toneDownSubject } from './tone-edit.js';

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
  return { subject, greeting, paragraphs: blocks.map((b) => splitSentences(b.replace(/\s*\n\s*/g, ' '))), signoff };
}

export function renderMessage(parts: MessageParts): string {
  const body = [
    parts.greeting,
    ...parts.paragraphs.filter((p) => p.length > 0).map((p) => p.join(' ')),
    parts.signoff,
  ].filter((x): x is string => Boolean(x?.trim()));
  return `${parts.subject ? `Subject: ${parts.subject}\n\n` : ''}${body.join('\n\n')}`;
}

function rewriteMessage(input: RewriteInput): { text: string; what_changed: string[] } {
  const changes: string[] = [];
  const parts = parseMessage(input.text);
  const failed = new Set(input.failed);

  if (failed.has('no_hype') || failed.has('tone')) {
    const counts = { edited: 0, dropped: 0, kept_unsafe: 0 };
    parts.paragraphs = parts.paragraphs.map((p, pi) =>
      p.flatMap((sentence, si) => {
        const elsewhere = renderMessage({
          ...parts,
          paragraphs: parts.paragraphs.map((q, qi) => (qi === pi ? q.filter((_, k) => k !== si) : q)),
        });
        const edit = toneDownSentence(sentence, elsewhere);
        if (edit.note !== 'kept') counts[edit.note]++;
        return edit.text === null ? [] : [edit.text];
      }),
    );
    if (parts.subject) parts.subject = toneDownSubject(parts.subject);
    if (counts.dropped > 0)
      changes.push(
        `Removed ${counts.dropped} filler sentence${counts.dropped === 1 ? '' : 's'} that said nothing the rest does not.`,
      );
    if (counts.edited > 0)
      changes.push(`Took hype, filler and shouting out of ${counts.edited} sentence${counts.edited === 1 ? '' : 's'}.`);
    if (counts.kept_unsafe > 0)
      changes.push(
        `Left ${counts.kept_unsafe} sentence${counts.kept_unsafe === 1 ? '' : 's'} as written: the hype carries ${counts.kept_unsafe === 1 ? 'it' : 'them'}, and ${counts.kept_unsafe === 1 ? 'it holds' : 'they hold'} a fact or the ask.`,
      );
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
    const asks = all.filter(isAsk);
    const ownAsks = asks.filter((a) => !isVagueAsk(a));
    const lastAsk = ownAsks.at(-1) ?? asks.at(-1);
    if (questions.length >= 3) {
      const last = questions[questions.length - 1];
      parts.paragraphs = parts.paragraphs.map((p) => p.filter((s) => !s.trim().endsWith('?') || s === last));
      changes.push(`Kept one question ("${last?.trim()}") instead of ${questions.length}.`);
    } else if (lastAsk && !isVagueAsk(lastAsk)) {
      // The writer's own ask says what they want; a generic one beside it would make two. A vague
      // one beside it ("Let me know.") only blurs it.
      const vague = asks.filter(isVagueAsk);
      parts.paragraphs = parts.paragraphs.map((p) => p.filter((x) => !vague.includes(x))).filter((p) => p.length > 0);
      changes.push(
        vague.length > 0
          ? `Kept your ask ("${lastAsk.trim()}") and dropped the vague one beside it ("${vague[0]?.trim()}").`
          : `Kept your ask ("${lastAsk.trim()}").`,
      );
    } else if (lastAsk || input.artifactType !== 'other') {
      // A vague ask ("Let me know.") is replaced by one concrete ask, not stacked with it. A short
      // note without any ask (a thank-you, a heads-up) is left without one.
      parts.paragraphs = parts.paragraphs.map((p) => p.filter((x) => !asks.includes(x) || !isVagueAsk(x)));
      parts.paragraphs = parts.paragraphs.filter((p) => p.length > 0);
      // Before a bare name signing the message ("Kevin"), which the sign-off reader does not take for one.
      const last = parts.paragraphs.at(-1);
      const signedByName =
        !parts.signoff && last?.length === 1 && /^[A-Z][\w'’-]*( [A-Z][\w'’-]*){0,2}$/.test(last[0] ?? '');
      parts.paragraphs.splice(signedByName ? -1 : parts.paragraphs.length, 0, [
        'Would a 15-minute call next week be useful?',
      ]);
      changes.push(
        lastAsk
          ? `Replaced the vague ask ("${lastAsk.trim()}") with one concrete ask (a 15-minute call next week).`
          : 'Ended with one concrete ask (a 15-minute call next week).',
      );
    }
  }

  const max = MAX_WORDS[input.artifactType ?? 'unknown'];
  const bodyWords = () => wordsOf(parts.paragraphs.flat().join(' ')).length;
  if (failed.has('length_fits_channel') && bodyWords() > max) {
    const flat = parts.paragraphs.flatMap((p, pi) => p.map((s, si) => ({ s, pi, si })));
    const topic = stemsOf(`${input.customerPhrases.join(' ')} ${input.audience ?? ''}`);
    // The first and last sentences, the ask and every sentence with a fact stay: cutting is for filler.
    const keep = new Set<number>([0, flat.length - 1]);
    flat.forEach((x, i) => {
      if (isAsk(x.s) || factsIn(x.s, HYPE_WORDS).length > 0) keep.add(i);
    });
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

  if (input.artifactType === 'email' && failed.has('subject_line')) {
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
