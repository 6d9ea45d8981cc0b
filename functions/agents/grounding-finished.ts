import type { BlockDraft } from './answer.js';

/**
 * Nothing unfinished reaches the reader (agents.md: "no placeholder or empty section remains"), for
 * every model and every renderer. One pass over an answer's prose and blocks finds and takes out:
 *
 * - a placeholder: digits masked as `#` ("Q# ####"), a template slot (`{{name}}`, "[insert …]"), a
 *   TODO/TBD/FIXME, a value rendered as `NaN` or `[object Object]` — the line goes;
 * - a section (a markdown heading, not the answer's first) whose body is empty or only says it has
 *   nothing ("found no further…", "None of … is linked…", "There are no…", "too little…") — the
 *   heading and its body go; so does a line that ends in a colon with nothing under it, in an answer
 *   that holds no table, metric or quote it could introduce;
 * - a sentence about quotes ("these quotes", "in their own words", "they come from") when the answer
 *   keeps no quote, and one pointing at "the table" when it keeps no table;
 * - a total smaller than one of its own parts: a metric whose label is another metric's label plus a
 *   qualifier ("Conversations, the quarter from 2026-07-01" under "Conversations") is a part of it,
 *   and a part above its total means the two count different things — the total goes.
 *
 * `tidyAnswer` is the renderer's pass (run on an answer before it is shown, and by the verifier after
 * its own removals, which can leave a heading over nothing); the verifier fails an answer whose draft
 * needed it (`unfinished` is not empty), because a composer that wrote it left something out.
 */

const PLACEHOLDER =
  /(?<![\w#])#{2,}(?![\w#])|(?<![\w#])[A-Za-z]#(?=\s+#)|\{\{[^}]*\}\}|\[(?:insert|placeholder|tbd|todo)\b[^\]]*\]|\b(?:TODO|TBD|FIXME)\b|\bNaN\b|\[object Object\]/;
const HEADING = /^#{1,6}\s/;
const SAYS_NOTHING =
  /\b(?:found no|found nothing|find no|there (?:are|is|were|was) no|none of|no further|nothing (?:more|further|else)|too little)\b|^(?:[-*]\s*)?no [a-z]/i;
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
  const tidyProse = (prose: string): string => {
    let lines = prose.split('\n').filter((line) => {
      const m = PLACEHOLDER.exec(line.replace(HEADING, '').replace(/`[^`]*`/g, ' '));
      if (m) unfinished.push(`a placeholder (“${m[0]}”) in “${line.trim().slice(0, 80)}”`);
      return !m;
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

/** Headings (not the first) over nothing or over lines that only say there is nothing; colon lines over nothing. */
function withoutEmptySections(lines: string[], hasEvidence: boolean, unfinished: string[]): string[] {
  const drop = new Set<number>();
  const headings = lines.flatMap((l, i) => (HEADING.test(l) ? [i] : []));
  const hasContent = headings.some((h, k) => {
    if (k === 0) return false;
    const body = lines.slice(h + 1, headings[k + 1] ?? lines.length).flatMap((l) => l.match(SENTENCE) ?? []);
    return body.some((s) => s.trim() !== '' && !SAYS_NOTHING.test(s.trim()));
  });
  headings.forEach((h, k) => {
    if (k === 0) return;
    const end = headings[k + 1] ?? lines.length;
    const body = lines.slice(h + 1, end).filter((l) => l.trim() !== '');
    const sentences = body.flatMap((l) => l.match(SENTENCE) ?? []).filter((s) => s.trim() !== '');
    if (body.length > 0 && !sentences.every((s) => SAYS_NOTHING.test(s.trim()))) return;
    // Where every section says it has nothing (an empty workspace), saying so is the answer.
    if (body.length > 0 && !hasContent) return;
    unfinished.push(
      body.length === 0
        ? `the section “${lines[h]!.replace(HEADING, '').trim()}” is empty`
        : `the section “${lines[h]!.replace(HEADING, '').trim()}” only says it has nothing`,
    );
    for (let i = h; i < end; i++) drop.add(i);
  });
  lines.forEach((line, i) => {
    if (drop.has(i) || !/:\s*$/.test(line.trim()) || HEADING.test(line)) return;
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

const asNumber = (v: unknown): number | null =>
  typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v)) ? Number(v) : null;

/** A metric whose label extends another's with a qualifier is a part of it; a total below a part goes. */
function withoutContradictedTotals(blocks: readonly BlockDraft[], unfinished: string[]): BlockDraft[] {
  const metrics = blocks.filter((b): b is Extract<BlockDraft, { kind: 'metric' }> => b.kind === 'metric');
  const contradicted = new Set<BlockDraft>();
  for (const total of metrics) {
    const whole = asNumber(total.value);
    if (whole === null) continue;
    const prefix = total.label.trim().toLowerCase();
    const over = metrics.find((part) => {
      if (part === total) return false;
      const label = part.label.trim().toLowerCase();
      const value = asNumber(part.value);
      return (
        value !== null &&
        value > whole &&
        /^(?:,|:| \(| —| –| - )/.test(label.slice(prefix.length)) &&
        label.startsWith(prefix)
      );
    });
    if (!over) continue;
    contradicted.add(total);
    unfinished.push(
      `the total “${total.label}” (${whole}) is below its own part “${over.label}” (${String(over.value)}): they count different things`,
    );
  }
  return blocks.filter((b) => !contradicted.has(b));
}
