import type { BlockDraft } from './answer.js';
import { placeholderIn } from './grounding-placeholders.js';
import { withoutContradictedTotals } from './grounding-totals.js';

/**
 * Nothing unfinished reaches the reader (agents.md: "no placeholder or empty section remains"), for
 * every model and every renderer. One pass over an answer's prose and blocks finds and takes out:
 *
 * - a placeholder (grounding-placeholders.ts): a masked number ("XX%", "$X,XXX", "N accounts", "Q# ####"),
 *   a template slot ("[Account Name]", "<company>", `{{name}}`), a TODO/TBD/FIXME, a value rendered as
 *   `NaN` or `[object Object]` — the line goes (a kept quote's words in it are not read);
 * - a section (a markdown heading, not the answer's first, or a bold label alone on its line) whose
 *   body is empty — nothing under it, or only headings and labels with nothing under them — or only
 *   says it has nothing ("found no further…", "None of … is linked…", "There are no…", "too little…",
 *   or a word for nothing alone: "N/A", "None.", "—", "(none)", "Nothing to report.", "Not applicable."):
 *   the heading and its body go; so does a label with only such a word after its colon ("Competitors:
 *   none.", "**Risks:** N/A") or under it, where the answer says something elsewhere; and a line that
 *   ends in a colon with nothing under it, in an answer that holds no table, metric or quote it could
 *   introduce;
 * - a sentence about quotes ("these quotes", "in their own words", "they come from") when the answer
 *   keeps no quote, and one pointing at "the table" when it keeps no table;
 * - a total its own breakdown contradicts (grounding-totals.ts, which writes the rule down): one smaller
 *   than one of its own parts (a metric whose label is its label plus a qualifier), or a total of 0 beside
 *   a metric or table whose labels name the same thing (periods aside, and the same period when the total
 *   names one) and count more than 0 of it — the total goes.
 *
 * `tidyAnswer` is the renderer's pass (run on an answer before it is shown, and by the verifier after
 * its own removals, which can leave a heading over nothing); the verifier fails an answer whose draft
 * needed it (`unfinished` is not empty), because a composer that wrote it left something out.
 */

const HEADING = /^#{1,6}\s/;
/** A word for nothing, alone: what a body or a label's value says when it has nothing to say. */
const NOTHING_WORD = String.raw`(?:\(\s*)?(?:none|n\/a|nil|nothing(?: (?:to report|of note|yet|found|so far))?|not applicable|no data|[-–—]+)(?:\s*\))?`;
const ONLY_NOTHING = new RegExp(String.raw`^(?:[-*]\s+)?(?:\*\*|__)?${NOTHING_WORD}(?:\*\*|__)?\s*[.!]?$`, 'i');
const SAYS_NOTHING =
  /\b(?:found no|found nothing|find no|there (?:are|is|were|was) no|none of|no further|nothing (?:more|further|else)|too little)\b|^(?:[-*]\s*)?no [a-z]/i;
const saysNothing = (sentence: string): boolean => SAYS_NOTHING.test(sentence) || ONLY_NOTHING.test(sentence);
/** A label whose value is only a word for nothing: "Competitors: none.", "**Risks:** N/A", "- Blockers: —". */
const LABEL_OVER_NOTHING = new RegExp(
  String.raw`^\s*(?:[-*]\s+)?(\*\*|__)?([^:*_\n]{1,80}?)(?::\1|\1:)\s*(?:\*\*|__)?${NOTHING_WORD}(?:\*\*|__)?\s*[.!]?\s*$`,
  'i',
);
const ABOUT_QUOTES =
  /\b(?:these|the|each|those|such) quotes?\b|\bin their own words\b|\bthey come from\b|\bquoted (?:above|below)\b/i;
const ABOUT_A_TABLE =
  /\b(?:in|see|from|into) the tables?\b|\bthe table (?:below|above|counts|has|lists|shows)\b|\(second table\)/i;
const SENTENCE = /[^.!?\n]+(?:[.!?]+|$)/g;

const QUOTE_KINDS = new Set(['quote', 'document_quote', 'memory_quote']);

export interface Tidied {
  text: string;
  blocks: BlockDraft[];
  /** What was taken out, in words (each a line, a section, a sentence or a block). */
  unfinished: string[];
}

export function tidyAnswer(text: string, blocks: readonly BlockDraft[]): Tidied {
  const unfinished: string[] = [];
  const kept = withoutContradictedTotals(blocks, unfinished);
  const hasQuote = kept.some((b) => QUOTE_KINDS.has(b.kind));
  const hasTable = kept.some((b) => b.kind === 'table');
  const hasEvidence = kept.some((b) => b.kind !== 'text' && b.kind !== 'callout');
  const names = namesIn(kept);
  const quotes = kept.flatMap((b) => (QUOTE_KINDS.has(b.kind) && 'text' in b ? [b.text] : []));
  const tidyProse = (prose: string): string => {
    let lines = prose.split('\n').filter((line) => {
      const placeholder = placeholderIn(line, names, quotes);
      if (placeholder) unfinished.push(`a placeholder (“${placeholder}”) in “${line.trim().slice(0, 80)}”`);
      return !placeholder;
    });
    lines = lines.flatMap((line) => {
      let out = line;
      for (const sentence of line.match(SENTENCE) ?? []) {
        const missing =
          !hasQuote && ABOUT_QUOTES.test(sentence)
            ? 'quotes'
            : !hasTable && ABOUT_A_TABLE.test(sentence)
              ? 'a table'
              : null;
        if (!missing) continue;
        unfinished.push(`“${sentence.trim().slice(0, 80)}” refers to ${missing} the answer does not hold`);
        out = out.replace(sentence, '');
      }
      return out !== line && /^\s*(?:[-*]|\d+\.)?\s*$/.test(out) ? [] : [out.replace(/\s+$/, '')];
    });
    return withoutEmptySections(lines, hasEvidence, unfinished)
      .join('\n')
      .replace(/\n{3,}/g, '\n\n')
      .trim();
  };
  return {
    text: tidyProse(text),
    blocks: kept.flatMap((b): BlockDraft[] => {
      if (b.kind !== 'text' && b.kind !== 'callout') return [b];
      const markdown = tidyProse(b.markdown);
      return markdown ? [{ ...b, markdown }] : [];
    }),
    unfinished,
  };
}

/** Every value the blocks hold, lower case: a name in brackets that is one of them is no slot. */
function namesIn(blocks: readonly BlockDraft[]): Set<string> {
  const out = new Set<string>();
  const visit = (v: unknown): void => {
    if (typeof v === 'string') out.add(v.trim().toLowerCase());
    else if (Array.isArray(v)) for (const x of v) visit(x);
    else if (v && typeof v === 'object') for (const x of Object.values(v)) visit(x);
  };
  for (const b of blocks) if (b.kind !== 'text' && b.kind !== 'callout') visit(b);
  return out;
}

/**
 * A line that opens a group: a markdown heading (its level 1–6), or a bold label alone on its line
 * ("**By account**", "**“budget”**": below every heading, level 7). A bold line that is a sentence
 * (it ends in a full stop, a question or an exclamation mark) or ends in a colon (it introduces what
 * follows, as any line ending in a colon does) is not a label.
 */
const BOLD_LABEL = /^\s*(\*\*|__)(?!\s)([^*_\n]{1,120}?)\1\s*$/;
function groupLevel(line: string): number | null {
  const heading = /^(#{1,6})\s/.exec(line);
  if (heading) return heading[1]!.length;
  const bold = BOLD_LABEL.exec(line);
  return bold && !/[.!?:]\s*$/.test(bold[2]!) ? 7 : null;
}
const groupName = (line: string): string =>
  line
    .replace(HEADING, '')
    .replace(/^\s*(\*\*|__)|(\*\*|__)\s*$/g, '')
    .trim();

/**
 * Groups (headings but the answer's first, and bold labels) over nothing or over lines that only say
 * there is nothing; colon lines over nothing. A group runs to the next group of its level or above, so
 * a heading over subheadings with something under them has a body, and one followed straight by a
 * heading of its own level (or a bold label followed by nothing but another label) has none.
 */
function withoutEmptySections(lines: string[], hasEvidence: boolean, unfinished: string[]): string[] {
  const drop = new Set<number>();
  const levels = lines.map(groupLevel);
  const firstHeading = lines.findIndex((l) => HEADING.test(l));
  const groups = levels.flatMap((level, i) => (level !== null && i !== firstHeading ? [i] : []));
  const spanOf = (i: number): { end: number; body: string[]; sentences: string[] } => {
    let end = i + 1;
    while (end < lines.length && (levels[end] === null || levels[end]! > levels[i]!)) end++;
    const body = lines.slice(i + 1, end).filter((l, k) => l.trim() !== '' && levels[i + 1 + k] === null);
    const sentences = body.flatMap((l) => l.match(SENTENCE) ?? []).filter((s) => s.trim() !== '');
    return { end, body, sentences };
  };
  const hasContent = groups.some((i) => spanOf(i).sentences.some((s) => !saysNothing(s.trim())));
  for (const i of groups) {
    if (drop.has(i)) continue;
    const { end, body, sentences } = spanOf(i);
    if (body.length > 0 && !sentences.every((s) => saysNothing(s.trim()))) continue;
    // Where every section says it has nothing (an empty workspace), saying so is the answer.
    if (body.length > 0 && !hasContent) continue;
    unfinished.push(
      body.length === 0
        ? `the section “${groupName(lines[i]!)}” is empty`
        : `the section “${groupName(lines[i]!)}” only says it has nothing`,
    );
    for (let k = i; k < end; k++) drop.add(k);
  }
  withoutLabelsOverNothing(lines, levels, drop, unfinished);
  lines.forEach((line, i) => {
    if (drop.has(i) || !/:\s*$/.test(line.trim()) || levels[i] !== null) return;
    let next = i + 1;
    while (next < lines.length && (drop.has(next) || lines[next]!.trim() === '')) next++;
    // Blocks are shown after the prose, not under their lines: a colon over nothing may introduce a
    // table or metric of the answer, so it introduces nothing only where the answer holds none.
    if ((next < lines.length && !HEADING.test(lines[next]!)) || hasEvidence) return;
    unfinished.push(`“${line.trim().slice(0, 80)}” introduces nothing`);
    drop.add(i);
  });
  return lines.filter((_, i) => !drop.has(i));
}

/**
 * Labels whose only value is a word for nothing, after their colon ("Competitors: none.") or on the
 * lines under them ("Competitors:" over "None."), go where the answer says something elsewhere: where
 * nothing else is said, saying there is nothing is the answer.
 */
function withoutLabelsOverNothing(
  lines: readonly string[],
  levels: readonly (number | null)[],
  drop: Set<number>,
  unfinished: string[],
): void {
  const labels = new Map<number, { name: string; span: number[] }>();
  lines.forEach((line, i) => {
    if (drop.has(i) || levels[i] !== null) return;
    const inline = LABEL_OVER_NOTHING.exec(line);
    if (inline) {
      labels.set(i, { name: inline[2]!.trim(), span: [i] });
      return;
    }
    if (!/:\s*$/.test(line.trim())) return;
    let next = i + 1;
    while (next < lines.length && lines[next]!.trim() === '') next++;
    const under: number[] = [];
    while (next < lines.length && lines[next]!.trim() !== '' && levels[next] === null) under.push(next++);
    if (under.length > 0 && under.every((k) => ONLY_NOTHING.test(lines[k]!.trim())))
      labels.set(i, { name: groupName(line).replace(/:\s*$/, ''), span: [i, ...under] });
  });
  if (labels.size === 0) return;
  const spanned = new Set([...labels.values()].flatMap((l) => l.span));
  const saysSomething = lines.some(
    (line, i) =>
      !drop.has(i) &&
      !spanned.has(i) &&
      levels[i] === null &&
      (line.match(SENTENCE) ?? []).some((s) => s.trim() !== '' && !saysNothing(s.trim())),
  );
  if (!saysSomething) return;
  for (const { name, span } of labels.values()) {
    unfinished.push(`the section “${name}” only says it has nothing`);
    for (const k of span) drop.add(k);
  }
}
