import { parseMessage } from '../evals/index.js';
import { factsLost, incompleteReason, isAsk, isVagueAsk } from '../evals/index.js';
import { HYPE_WORDS } from '../evals/index.js';

/**
 * What a rewrite may not do to someone's draft, whichever model wrote it (the optimizer's promise:
 * it never damages a draft). A rewrite is refused when it leaves a sentence it changed incomplete,
 * drops a fact the writer gave (numbers, names, dates, product terms), asks more than the draft
 * did (never a second ask beside the writer's), or loses the writer's own ask without putting one
 * clearly better ask in place of a vague one.
 */

const sentencesIn = (text: string): string[] => parseMessage(text).paragraphs.flat();

/** Words of a sentence, lowercased, hype left out: the ask "as written" survives a tone edit. */
const wordsKey = (sentence: string): string =>
  (sentence.toLowerCase().match(/[a-z0-9][a-z0-9'’-]*/g) ?? []).filter((w) => !HYPE_WORDS.includes(w)).join(' ');

export function damageOf(draft: string, rewrite: string): string | null {
  const before = sentencesIn(draft);
  const after = sentencesIn(rewrite);
  const untouched = new Set(before.map((s) => s.trim()));
  for (const sentence of after) {
    if (untouched.has(sentence.trim())) continue; // the writer's own sentence, as they wrote it
    const broken = incompleteReason(sentence);
    if (broken) return `it leaves an incomplete sentence: ${broken}`;
  }
  const lost = factsLost(draft, rewrite, HYPE_WORDS);
  if (lost.length > 0) return `it drops what the writer said: ${lost.slice(0, 5).join(', ')}`;
  const asksBefore = before.filter(isAsk);
  const asksAfter = after.filter(isAsk);
  if (asksAfter.length > Math.max(1, asksBefore.length))
    return `it asks ${asksAfter.length} things where the draft asked ${asksBefore.length}`;
  const ownAsk = asksBefore.at(-1);
  if (ownAsk && !isVagueAsk(ownAsk)) {
    const key = wordsKey(ownAsk);
    if (!after.some((s) => wordsKey(s) === key)) return `it replaces the writer's own ask ("${ownAsk.trim()}")`;
  }
  return null;
}
