import { contentWords, stemWord } from '../../platform/model/local.js';
import type { BlockDraft } from './answer.js';
import { isScaffoldWord } from './understanding/question-words.js';

/**
 * The verifier's parts rule (agents.md: "every part of a multi-part question is answered or declined
 * by name"), for every model whose answer reports how it read the question: each of the
 * interpretation's `parts` must be answered by a part of the answer of its own, or declined in words
 * that name it. A part left over is named in the check's detail and in a warning the verifier adds,
 * and the check fails: an answer to one question of two is not a verified answer to the two.
 *
 * It is a lexical check on the part's own words (content words, question scaffolding aside, stemmed,
 * a few sales synonyms alike: "revenue" is an "amount"):
 *
 * - a section (a markdown heading, a bold line, a numbered bold lead) answers the part its heading
 *   names best: it holds at least half of the part's words. Each section answers one part, so a
 *   heading that names two ("open deals in EMEA" beside "deals in discovery") answers the one it
 *   names better and leaves the other to a section of its own;
 * - without such a section, a sentence outside the sections other parts took (the answer's opening,
 *   a section whose heading names no part) holding half of its words, or a table or metric whose title
 *   holds all of them, answers it;
 * - a sentence or heading that names the part (half its words, or the part as written) and says it
 *   is not answered ("not answered here", "can't answer", "does not hold") declines it.
 *
 * A part with no word of its own ("and how many?") cannot be told from the others and is not held
 * to it (the detail says so). What a part of the answer says is not judged here: whether its
 * figures and quotes hold is the other checks' work.
 */

export interface PartsVerdict {
  /** Whether the answer reported parts to hold it to (a question of two parts or more). */
  judged: boolean;
  answered: string[];
  declined: string[];
  /** Parts neither answered nor declined by name. */
  missing: string[];
  /** Parts with no word of their own, not held to the rule. */
  unjudged: string[];
}

/** Words a part is asked with beyond the question scaffolding: they name no part. */
const LINKING = new Set(
  'those these that them it its still each every also both plus altogether whole overall and or then so too please things two three four part parts deck qbr'.split(
    ' ',
  ),
);

/** Sales words that say the same thing in a part and in the heading answering it. */
const ALIKE: readonly string[] = [
  'amount amounts revenue revenues worth value values sum sums bookings arr dollars money',
  'count counts number numbers many',
  'win wins won winning',
  'lose loses lost losing loss losses',
  'close closes closed closing',
  'own owns owned owner owners owning',
  'price prices pricing cost costs expensive discount discounts',
  'competitor competitors competition rival rivals alternative alternatives',
  'customer customers buyer buyers client clients prospect prospects',
];
const ALIKE_OF = new Map<string, Set<string>>();
for (const line of ALIKE) {
  const stems = new Set(line.split(' ').map(stemWord));
  for (const s of stems) ALIKE_OF.set(s, stems);
}

const DECLINED =
  /\b(?:not|never|n't)\s+(?:been\s+|yet\s+)?(?:answer(?:ed)?|cover(?:ed)?|address(?:ed)?)\b|\bcan(?:not|'t|’t)\s+answer\b|\bunable to answer\b|\bunanswered\b|\bdoes(?: not|n't|n’t) hold\b|\bno data (?:on|for|about)\b|\bout of scope\b|\bdeclin(?:e|ed|ing)\b/i;

const HEADING = /^\s{0,3}#{1,6}\s+(.+?)\s*#*\s*$/;
/** A line that is bold and nothing else, or a numbered bold lead ("2. **Win rate**: …"), optionally numbered. */
const BOLD_HEADING = /^\s*(?:\d+[.)]\s+|[-*]\s+)?\*\*([^*]+?)\*\*\s*(?::\s*(.*))?$/;

interface Section {
  heading: string | null;
  sentences: string[];
}

/**
 * Records the scaffolding sets aside for a quote's topic, which tell parts apart ("how many calls …,
 * and what did customers say …"): a part's words keep them.
 */
const RECORDS = new Set(
  'call calls meeting meetings email emails post posts conversation conversations transcript transcripts note notes interaction interactions customer customers buyer buyers client clients prospect prospects'.split(
    ' ',
  ),
);

const termsOf = (text: string): string[] => [
  ...new Set(
    contentWords(text.replace(/[“”"‘’]/g, ' '))
      .filter((w) => (RECORDS.has(w) || !isScaffoldWord(w)) && !LINKING.has(w) && !/\d/.test(w))
      .map(stemWord),
  ),
];

function holds(stems: ReadonlySet<string>, term: string): boolean {
  if (stems.has(term)) return true;
  for (const alike of ALIKE_OF.get(term) ?? []) if (stems.has(alike)) return true;
  if (term.length < 4) return false;
  for (const s of stems) if (s.length >= 4 && (s.startsWith(term) || term.startsWith(s))) return true;
  return false;
}

/** The share of a part's words a piece of the answer holds. */
function share(terms: readonly string[], text: string): number {
  if (terms.length === 0) return 0;
  const stems = new Set(termsOf(text));
  return terms.filter((t) => holds(stems, t)).length / terms.length;
}

const SENTENCE = /[^.!?;\n]+(?:[.!?;]+|$)/g;
const sentencesOf = (line: string): string[] => (line.match(SENTENCE) ?? []).map((s) => s.trim()).filter(Boolean);

/** The answer's prose cut into sections at its headings; what comes before the first is a section with none. */
function sectionsOf(passages: readonly string[]): Section[] {
  const sections: Section[] = [{ heading: null, sentences: [] }];
  for (const passage of passages) {
    for (const line of passage.split('\n')) {
      const heading = HEADING.exec(line)?.[1] ?? null;
      const bold = heading === null ? BOLD_HEADING.exec(line) : null;
      if (heading !== null || bold) {
        sections.push({ heading: (heading ?? bold?.[1] ?? '').trim(), sentences: [] });
        if (bold?.[2]) sections.at(-1)!.sentences.push(...sentencesOf(bold[2]));
        continue;
      }
      sections.at(-1)!.sentences.push(...sentencesOf(line));
    }
  }
  return sections;
}

const blockTitle = (b: BlockDraft): string | null =>
  b.kind === 'table' ? b.title : b.kind === 'metric' ? b.label : b.kind === 'theme_finding' ? b.label : null;

export function checkParts(parts: readonly string[], text: string, blocks: readonly BlockDraft[]): PartsVerdict {
  const verdict: PartsVerdict = { judged: parts.length > 1, answered: [], declined: [], missing: [], unjudged: [] };
  if (!verdict.judged) return verdict;
  const passages = [text, ...blocks.flatMap((b) => (b.kind === 'text' || b.kind === 'callout' ? [b.markdown] : []))];
  const sections = sectionsOf(passages);
  const terms = parts.map(termsOf);
  const names = (i: number, piece: string): boolean =>
    share(terms[i]!, piece) >= 0.5 || normal(piece).includes(normal(parts[i]!));

  // Declined by name: a heading or sentence that names the part and says it is not answered.
  const pieces = sections.flatMap((s) => [...(s.heading ? [s.heading] : []), ...s.sentences]);
  const declined = new Set<number>();
  parts.forEach((_, i) => {
    if (terms[i]!.length > 0 && pieces.some((p) => DECLINED.test(p) && names(i, p))) declined.add(i);
  });
  // A section whose own heading or opening sentence declines the part it names is not an answer to it.
  const declines = (s: Section) => DECLINED.test(s.heading ?? '') || DECLINED.test(s.sentences[0] ?? '');

  // Sections answer the parts their headings name best, one part each.
  const pairs: { section: number; part: number; score: number }[] = [];
  sections.forEach((s, si) => {
    if (s.heading === null || declines(s)) return;
    parts.forEach((_, pi) => {
      if (declined.has(pi) || terms[pi]!.length === 0) return;
      const score = share(terms[pi]!, s.heading!);
      if (score >= 0.5) pairs.push({ section: si, part: pi, score });
    });
  });
  pairs.sort((a, b) => b.score - a.score || a.part - b.part);
  const takenSections = new Set<number>();
  const answered = new Set<number>();
  for (const p of pairs) {
    if (takenSections.has(p.section) || answered.has(p.part)) continue;
    takenSections.add(p.section);
    answered.add(p.part);
  }
  // Then a sentence outside the sections other parts took, or a block titled with all of the part's words.
  const free = sections.filter((s, si) => !takenSections.has(si) && !declines(s)).flatMap((s) => s.sentences);
  const titles = blocks.flatMap((b) => blockTitle(b) ?? []);
  parts.forEach((part, i) => {
    if (terms[i]!.length === 0) return verdict.unjudged.push(part);
    if (declined.has(i) && !answered.has(i)) return verdict.declined.push(part);
    if (
      answered.has(i) ||
      free.some((s) => share(terms[i]!, s) >= 0.5) ||
      titles.some((t) => share(terms[i]!, t) === 1)
    )
      return verdict.answered.push(part);
    verdict.missing.push(part);
  });
  return verdict;
}

const normal = (s: string): string =>
  s
    .toLowerCase()
    .replace(/[“”"‘’?.!]/g, '')
    .replace(/\s+/g, ' ')
    .trim();
