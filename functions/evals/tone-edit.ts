import { ACRONYMS, factsIn, incompleteReason, isAsk } from './sentence-safety.js';
import { HYPE_WORDS } from './text.js';

/**
 * Taking the hype out of one sentence without breaking it. A hype word goes only where it stands
 * before the word it describes ("a revolutionary platform" → "a platform"); where it carries the
 * sentence ("our AI is revolutionary.") removing it would leave "our AI is.", so the sentence is
 * dropped when nothing in it is needed elsewhere, and kept as written otherwise.
 */

const WHOLE_FILLERS = [/^i hope (this|the) (email|message|note) finds you well[.!]?$/i];
const FILLER_PREFIXES: RegExp[] = [/^just (?=(following up|checking in)\b)/i, /^per my last email,?\s*/i];
/** "My name is Sam and ...": the cliché goes, the name stays unless the message signs it elsewhere. */
const MY_NAME_IS = /^[Mm]y name is ([A-Z][\w'’-]*(?:\s[A-Z][\w'’-]*)?)(\s*,\s*(?:and\s+)?|\s+and\s+)/;
const PHRASE_SWAPS: [RegExp, string][] = [
  [/\bcircle back\b/gi, 'follow up'],
  [/\btouch base\b/gi, 'talk'],
  [/\bjust (following up|checking in)\b/gi, '$1'],
];
/** Words after which a describing word can go without taking the grammar with it. */
const SAFE_BEFORE = new Set(['a', 'an', 'the', 'our', 'your', 'their', 'its', 'this', 'that', 'these', 'those', 'my']);

const escapeRegExp = (s: string) => s.replace(/[-/\\^$*+?.()|[\]{}]/g, '\\$&');
const capitalize = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** Describing words only: a noun or verb ("synergy", "disrupt") carries its sentence, and a phrase is a filler. */
const DESCRIBING_HYPE = [
  'revolutionary',
  'game-changing',
  'best-in-class',
  'world-class',
  'cutting-edge',
  'unbelievable',
  'amazing',
  'incredible',
  'guaranteed',
].filter((w) => HYPE_WORDS.includes(w));

/** "a" or "an" for the word that now follows the article. */
const articleFor = (next: string): string =>
  /^(hour|honest|honou?r|heir)/i.test(next)
    ? 'an'
    : /^(uni|use|usu|one|eu)/i.test(next)
      ? 'a'
      : /^[aeiou]/i.test(next)
        ? 'an'
        : 'a';

/** Hype words that stand before another word, after an article or possessive or at the start. */
function removeDescribingHype(sentence: string): string {
  let out = sentence;
  for (let pass = 0; pass < 4; pass++) {
    let changed = false;
    for (const word of DESCRIBING_HYPE) {
      const re = new RegExp(`(^|\\b(\\w+)\\s+)${escapeRegExp(word)}\\s+(?=([A-Za-z0-9][\\w-]*))`, 'i');
      const m = re.exec(out);
      if (!m) continue;
      const before = m[2];
      if (m[1] !== '' && (before === undefined || !SAFE_BEFORE.has(before.toLowerCase()))) continue;
      const next = m[3] ?? '';
      // "an amazing tool" → "a tool": the article agrees with the word now after it.
      const lead =
        before && /^an?$/i.test(before)
          ? (m[1] ?? '').replace(
              /\b(an?)(\s+)$/i,
              (_, a: string, gap: string) => (a[0] === 'A' ? capitalize(articleFor(next)) : articleFor(next)) + gap,
            )
          : (m[1] ?? '');
      const rest = out.slice(m.index + m[0].length);
      out = out.slice(0, m.index) + lead + (m.index === 0 && lead === '' ? capitalize(rest) : rest);
      changed = true;
    }
    if (!changed) break;
  }
  return out;
}

/** SHOUTING made plain; acronyms (SSO, HIPAA) stay as written. */
const unshout = (sentence: string): string =>
  sentence.replace(/\b([A-Z]{4,})\b/g, (w, _g, at: number) =>
    ACRONYMS.has(w) ? w : at === 0 ? w.charAt(0) + w.slice(1).toLowerCase() : w.toLowerCase(),
  );

const hasHype = (sentence: string): boolean => {
  const lower = sentence.toLowerCase();
  return HYPE_WORDS.some((w) => new RegExp(`\\b${escapeRegExp(w)}\\b`).test(lower));
};

/** A subject line with its hype, shouting and exclamation marks out; as written when nothing would be left. */
export function toneDownSubject(subject: string): string {
  let out = subject;
  for (const [re, to] of PHRASE_SWAPS) out = out.replace(re, to);
  for (const word of DESCRIBING_HYPE) out = out.replace(new RegExp(`\\b${escapeRegExp(word)}\\b\\s*`, 'gi'), '');
  out = unshout(out)
    .replace(/!+/g, '')
    .replace(/\s{2,}/g, ' ')
    .trim();
  return /[A-Za-z0-9]/.test(out) ? capitalize(out) : subject;
}

export interface ToneEdit {
  /** The sentence to keep, or null to drop it. */
  text: string | null;
  /** What was done, for the rewrite's `what_changed`. */
  note: 'kept' | 'edited' | 'dropped' | 'kept_unsafe';
}

/**
 * One sentence with its hype taken out safely. `elsewhere` is the rest of the message: a sentence
 * is dropped only when every fact it holds is also said there, and never when it is the ask.
 */
export function toneDownSentence(sentence: string, elsewhere: string): ToneEdit {
  const original = sentence.trim();
  const droppable = () =>
    !isAsk(original) && factsIn(original, HYPE_WORDS).every((f) => elsewhere.includes(f.replace(/['’]s$/, '')));
  if (WHOLE_FILLERS.some((r) => r.test(original)))
    return droppable() ? { text: null, note: 'dropped' } : { text: original, note: 'kept_unsafe' };
  let out = original;
  for (const prefix of FILLER_PREFIXES) out = out.replace(prefix, '');
  out = out.replace(MY_NAME_IS, (_, name: string, gap: string) =>
    elsewhere.includes(name) ? '' : `I'm ${name}${gap.includes(',') ? gap : `, ${gap.trim()} `}`,
  );
  if (out !== original) out = capitalize(out);
  for (const [re, to] of PHRASE_SWAPS) out = out.replace(re, to);
  out = removeDescribingHype(out);
  out = unshout(out)
    .replace(/!+/g, '.')
    .replace(/\s{2,}/g, ' ')
    .replace(/\s+([.,?])/g, '$1')
    .trim();
  const broken = incompleteReason(out) !== null && incompleteReason(original) === null;
  const lostFacts = factsIn(original, HYPE_WORDS)
    .map((f) => f.replace(/['’]s$/, ''))
    .some((f) => !out.includes(f) && !elsewhere.includes(f));
  if (!broken && !lostFacts && !hasHype(out)) return { text: out, note: out === original ? 'kept' : 'edited' };
  // Hype that carries the sentence: no word-level edit is safe.
  if (droppable()) return { text: null, note: 'dropped' };
  if (!broken && !lostFacts && out !== original) return { text: out, note: 'edited' };
  return { text: original, note: 'kept_unsafe' };
}
