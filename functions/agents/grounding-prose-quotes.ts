import type { BlockDraft } from './answer.js';
import { quotationsIn } from './grounding-quotations.js';
import { withoutQuotedLines } from './relevance.js';

/**
 * The verifier's prose-quote rule (agents.md: "every quotation in prose is a verified quote block"),
 * for every model: words in quotation marks that the prose gives as what someone said must be the
 * text (or a part of the text) of a quote block the answer keeps — a customer's, a document's or a
 * memory's, each already checked verbatim. The comparison forgives whitespace runs, curly versus
 * straight quotation marks, the punctuation at either end and an ellipsis between two parts of the
 * same quote; nothing else. A quotation that matches none is taken out with its line (and a heading
 * left over nothing goes too), so a quote that failed its own check, or was never a block, cannot
 * stand in the prose instead.
 *
 * What a quotation is, in any marks (“…”, ‘…’, «…», „…“, a blockquote line, a list line giving a
 * person's words after their name), is grounding-quotations.ts's. "Given as what someone said": the
 * quotation follows a colon, a dash or a verb of saying on its line ("Jane: “…”", "as the CFO put it,
 * “…”"), or a person's name on a list line, or it runs to four words or more. Shorter words in
 * quotation marks (a theme's word, a topic's name, a period as the question wrote it) are not
 * quotations, and neither are the asked question's own words or a search's query.
 */

const normal = (s: string): string =>
  s
    .replace(/[“”„‟]/g, '"')
    .replace(/[‘’‚‛]/g, "'")
    .replace(/\s+/g, ' ')
    .trim();
const trimEnds = (s: string): string => s.replace(/^[\s"'.,;:!?…-]+|[\s"'.,;:!?…-]+$/g, '');

export interface ProseQuoteResult {
  /** The prose without the lines quoting what no kept quote block says. */
  rewrite: (text: string) => string;
  problems: string[];
  checked: number;
  removed: number;
}

/** Whether `quotation` is the text of one of the quote blocks (pieces around an ellipsis in order, all in the same block). */
function inAQuote(quotation: string, quotes: readonly string[]): boolean {
  const pieces = quotation
    .split(/…|\.\.\.|\[…\]|\[\.\.\.\]/)
    .map((p) => trimEnds(normal(p)))
    .filter((p) => p.length > 0);
  if (pieces.length === 0) return true;
  return quotes.some((q) => {
    let from = 0;
    for (const piece of pieces) {
      const at = q.indexOf(piece, from);
      if (at < 0) return false;
      from = at + piece.length;
    }
    return true;
  });
}

export function checkProseQuotes(
  passages: readonly string[],
  kept: readonly BlockDraft[],
  /** Words the prose may quote without a block: the asked question, the run's search queries. */
  echoes: readonly string[],
  /** The names opening list lines (grounding-quotations.ts's namedLineLabels) that are people's. */
  people: ReadonlySet<string> = new Set(),
): ProseQuoteResult {
  // A verified table's text cells are data read from the warehouse (a qualification note, a title):
  // quoting one in the prose quotes the row, not a speaker.
  const quotes = kept.flatMap((b) =>
    b.kind === 'quote' || b.kind === 'document_quote' || b.kind === 'memory_quote'
      ? [normal(b.text)]
      : b.kind === 'table'
        ? b.data.flatMap((row) => Object.values(row).flatMap((v) => (typeof v === 'string' ? [normal(v)] : [])))
        : [],
  );
  // A kept quote's speaker is a person, whatever the caller knew of the name.
  const speakers = new Set([
    ...people,
    ...kept.flatMap((b) => (b.kind === 'quote' && b.source.speaker ? [b.source.speaker] : [])),
  ]);
  // The asker's own words, whatever their case ("zoe kim" asked, “Zoe Kim” echoed back).
  const echoed = echoes.map((e) => normal(e).toLowerCase()).filter(Boolean);
  // The same words quoted twice (in two marks, or with and without their stop) are one quotation.
  const unbacked = new Map<string, Set<string>>();
  const problems: string[] = [];
  let checked = 0;
  for (const passage of passages) {
    for (const line of passage.split('\n')) {
      for (const { text: quotation, attributed } of quotationsIn(line, speakers)) {
        const words = quotation.trim().split(/\s+/).filter(Boolean).length;
        if (words < 4 && !attributed) continue;
        const text = trimEnds(normal(quotation));
        if (!text || echoed.some((e) => e.includes(text.toLowerCase()))) continue;
        checked++;
        if (inAQuote(quotation, quotes)) continue;
        const seen = unbacked.get(text);
        if (seen) {
          seen.add(quotation);
          continue;
        }
        unbacked.set(text, new Set([quotation]));
        problems.push(`the prose quotes “${quotation.slice(0, 120)}”, which no quote block of this answer says`);
      }
    }
  }
  const gone = [...unbacked.values()].flatMap((raw) => [...raw]);
  return {
    rewrite: (text) => (gone.length > 0 ? withoutQuotedLines(text, gone) : text),
    problems,
    checked,
    removed: unbacked.size,
  };
}
