import type { BlockDraft } from './answer.js';
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
 * "Given as what someone said": the quotation follows a colon, a dash or a verb of saying on its
 * line ("Jane: “…”", "as the CFO put it, “…”"), or it runs to four words or more. Shorter words in
 * quotation marks (a theme's word, a topic's name, a period as the question wrote it) are not
 * quotations, and neither are the asked question's own words or a search's query.
 */

const QUOTATION = /“([^”\n]{1,2000})”|"([^"\n]{1,2000})"/g;
const ATTRIBUTION =
  /(?::|—|–|\b(?:said|says|say|told|tells|wrote|writes|asked|asks|put it|added|noted|explained|complained|mentioned|replied))\s*[*_]*\s*$/i;

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
  // The asker's own words, whatever their case ("zoe kim" asked, “Zoe Kim” echoed back).
  const echoed = echoes.map((e) => normal(e).toLowerCase()).filter(Boolean);
  const unbacked = new Set<string>();
  const problems: string[] = [];
  let checked = 0;
  for (const passage of passages) {
    for (const line of passage.split('\n')) {
      for (const m of line.matchAll(QUOTATION)) {
        const quotation = m[1] ?? m[2] ?? '';
        const words = quotation.trim().split(/\s+/).filter(Boolean).length;
        const before = line.slice(0, m.index);
        // A string in JSON ({"answer":"Acme Health"}) touches its bracket, comma or colon; prose leaves a space.
        if (/[{[,:]$/.test(before)) continue;
        if (words < 4 && !ATTRIBUTION.test(before)) continue;
        const text = trimEnds(normal(quotation));
        if (!text || echoed.some((e) => e.includes(text.toLowerCase()))) continue;
        checked++;
        if (inAQuote(quotation, quotes) || unbacked.has(quotation)) continue;
        unbacked.add(quotation);
        problems.push(`the prose quotes “${quotation.slice(0, 120)}”, which no quote block of this answer says`);
      }
    }
  }
  const gone = [...unbacked];
  return {
    rewrite: (text) => (gone.length > 0 ? withoutQuotedLines(text, gone) : text),
    problems,
    checked,
    removed: gone.length,
  };
}
