import { contentWords, stemWord } from '../../platform/model/local.js';
import { sentencesOf } from '../agents/index.js';

/** Reading a message or prompt: words, sentences, asks, hype, focus. Plain, deterministic. */

export const wordsOf = (text: string): string[] => text.match(/[A-Za-z0-9][A-Za-z0-9'’-]*/g) ?? [];

/** Words too common in business talk to say what a text is about (kept out of topic overlap). */
const GENERIC = new Set(
  'me my mine us he him his she her feel feels same company companies thing things way lot bit kind sort part people folks everyone someone something anything everything honestly candidly frankly know let think want need get make like just also really would could should team time thank thanks hi hello hey dear best regards said say says ask asked tell told look looking good great well still going come came see seen use using one two first next last week month year day today call email meeting quick out'
    .split(' ')
    .map(stemWord),
);

/** The topical word stems of a text (content words minus business filler). */
export const stemsOf = (text: string): Set<string> =>
  new Set(
    contentWords(text)
      .map(stemWord)
      .filter((s) => !GENERIC.has(s)),
  );
export { sentencesOf };

/** `Subject: ...` on the first line, and the body after it. */
export function splitSubject(text: string): { subject: string | null; body: string } {
  const normalized = text.replace(/\r\n?/g, '\n');
  const match = /^\s*subject:\s*(.*)\n?/i.exec(normalized);
  if (!match) return { subject: null, body: normalized.trim() };
  return { subject: (match[1] ?? '').trim() || null, body: normalized.slice(match[0].length).trim() };
}

export const HYPE_WORDS = [
  'guarantee',
  'guaranteed',
  'revolutionary',
  'game-changing',
  'game changer',
  'best-in-class',
  'world-class',
  'cutting-edge',
  'synergy',
  'act now',
  'limited time',
  'once in a lifetime',
  'skyrocket',
  '10x',
  'disrupt',
  'unbelievable',
  'amazing',
  'incredible',
  'circle back',
  'touch base',
  'just following up',
  'just checking in',
  'per my last email',
  'i hope this email finds you well',
  'my name is',
];

export function hypeIn(text: string): string[] {
  const lower = text.toLowerCase();
  const found = HYPE_WORDS.filter((w) => lower.includes(w));
  if (/!{2,}/.test(text)) found.push('!!');
  const shouting = wordsOf(text).filter((w) => w.length >= 4 && w === w.toUpperCase() && /[A-Z]/.test(w));
  if (shouting.length > 0) found.push(...shouting.slice(0, 3));
  return found;
}

export const CTA_PHRASES = [
  'would you be open',
  'are you open',
  'worth a',
  'open to a',
  'can we',
  'could we',
  'would it make sense',
  'does it make sense',
  'interested in',
  'minutes',
  'book a',
  'grab time',
  'schedule',
  'let me know if',
  'reply',
  'are you free',
  'how about',
  'next week',
  'a quick call',
];

/** The message's asks: sentences ending in a question mark, and sentences with a call-to-action phrase. */
export function asksIn(text: string): string[] {
  return sentencesOf(splitSubject(text).body).filter(
    (s) => s.trim().endsWith('?') || CTA_PHRASES.some((p) => s.toLowerCase().includes(p)),
  );
}

export const questionCount = (text: string): number =>
  sentencesOf(splitSubject(text).body).filter((s) => s.trim().endsWith('?')).length;

/** Reader focus: "you/your" against "I/we/our". */
export function focusOf(text: string): { you: number; self: number } {
  const words = wordsOf(text).map((w) => w.toLowerCase());
  return {
    you: words.filter((w) => w === 'you' || w === 'your' || w === "you're" || w === 'yours').length,
    self: words.filter(
      (w) => w === 'i' || w === 'we' || w === 'our' || w === 'us' || w === "i'm" || w === "we're" || w === 'my',
    ).length,
  };
}

/** Concrete facts: numbers, percentages, money, and the names given (account, references). */
export function specificsIn(text: string, names: readonly string[]): string[] {
  const found: string[] = [
    ...(text.match(/\$?\d[\d,.]*\s?(%|percent|k|m|x|days|weeks|hours|minutes|seats|users)?/gi) ?? []),
  ];
  const lower = text.toLowerCase();
  for (const name of names) if (name && lower.includes(name.toLowerCase())) found.push(name);
  return found;
}

export function averageSentenceWords(text: string): number {
  const sentences = sentencesOf(splitSubject(text).body);
  if (sentences.length === 0) return 0;
  return sentences.reduce((n, s) => n + wordsOf(s).length, 0) / sentences.length;
}

/** Stems two texts share (customer language in a message). */
export function sharedStems(a: Set<string>, b: Set<string>): string[] {
  return [...a].filter((s) => b.has(s));
}

/**
 * The customers' own phrases: two- and three-word runs that recur across the quotes (verbatim, as
 * the first quote wrote them), most frequent first. The rewrite borrows these, never whole quotes.
 */
export function recurringPhrases(quotes: readonly string[], limit = 3): string[] {
  const counts = new Map<string, { n: number; sample: string; quotes: Set<number> }>();
  const topical = (word: string) => stemsOf(word).size > 0;
  quotes.forEach((quote, qi) => {
    const tokens = quote.match(/[A-Za-z][A-Za-z'’-]*/g) ?? [];
    for (const size of [3, 2]) {
      for (let i = 0; i + size <= tokens.length; i++) {
        const run = tokens.slice(i, i + size);
        // Both ends topical (a middle "of" or "the" may stay): "manual reporting", "cost of ownership".
        if (!topical(run[0] ?? '') || !topical(run[size - 1] ?? '')) continue;
        if (size === 3 && !topical(run[1] ?? '') && !/^(of|for|in|on|to|and|the)$/i.test(run[1] ?? '')) continue;
        const key = run.map((t) => stemWord(t.toLowerCase())).join(' ');
        const entry = counts.get(key) ?? { n: 0, sample: run.join(' '), quotes: new Set<number>() };
        entry.n++;
        entry.quotes.add(qi);
        counts.set(key, entry);
      }
    }
  });
  return [...counts.values()]
    .filter((e) => e.quotes.size >= 2)
    .sort((a, b) => b.quotes.size - a.quotes.size || b.n - a.n || a.sample.localeCompare(b.sample))
    .map((e) => e.sample.toLowerCase())
    .filter((p, i, all) => !all.slice(0, i).some((q) => q.includes(p) || p.includes(q)))
    .slice(0, limit);
}
