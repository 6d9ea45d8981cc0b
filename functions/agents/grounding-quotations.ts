/**
 * Where a line of prose quotes someone (the prose-quote rule, grounding-prose-quotes.ts, holds each
 * quotation to the kept quote blocks). Quotation is a form, whatever its marks:
 *
 * - words between quotation marks: “…”, "…", ‘…’, «…», „…“;
 * - a markdown blockquote line ("> We need SSO first.", an attribution after a dash aside), unless it
 *   opens with a label of the answer's own ("> **Note:** …", "> [!NOTE]");
 * - a list line that gives a person's words after their name: "- Dana Reyes: we need SSO first",
 *   "- Dana (Acme) — our budget is frozen". The name is a person's (`people`), and the words speak in the
 *   first or second person, as a speaker does; "- Dana Reyes: head of operations" describes her.
 *
 * An apostrophe inside or at the end of a word (don’t, customers’) opens and closes nothing, and ‘90s
 * is a year. Each quotation carries what comes before it on its line, and whether that attributes it
 * (a colon, a dash or a verb of saying, or the list line's name).
 */

export interface Quotation {
  /** The quoted words, as the line writes them. */
  text: string;
  /** Whether the line gives them as someone's (a colon, a dash, a verb of saying, a person's name). */
  attributed: boolean;
}

const MARKED: readonly RegExp[] = [
  /„([^“”\n]{1,2000})[“”]/g,
  /“([^”\n]{1,2000})”/g,
  /"([^"\n]{1,2000})"/g,
  /«\s?([^»\n]{1,2000}?)\s?»/g,
  /(?<![\p{L}\p{N}])‘(?!\d)((?:[^’\n]|’(?=[\p{L}\p{N}])){1,2000})’(?![\p{L}\p{N}])/gu,
];
const ATTRIBUTION =
  /(?::|—|–|\b(?:said|says|say|told|tells|wrote|writes|asked|asks|put it|added|noted|explained|complained|mentioned|replied))\s*[*_]*\s*$/i;
const BLOCKQUOTE = /^\s*>\s?(.*)$/;
/** A blockquote that is the answer's own note: a label opens it ("**Note:**", "Note:", "[!NOTE]"). */
const OWN_NOTE = /^\s*(?:\[![A-Z]+\]|(?:\*\*|__)?[A-Z][\w ]{0,30}:(?:\*\*|__)?\s)/;
/** A person's name opening a list line, an account or role in parentheses after it, then a colon or dash. */
const NAMED_LINE =
  /^\s*(?:[-*+]|\d+\.)\s+(?:\*\*|__)?([A-Z][\p{L}'’.-]*(?: [A-Z][\p{L}'’.-]*){0,3})(?:\*\*|__)?(?:\s*\([^)\n]{1,80}\))?(?:\*\*|__)?\s*(?::|—|–)\s*(?:\*\*|__)?(.+)$/u;
/** First or second person: how a speaker talks, not how an answer describes them. */
const SPEAKS = /\b(?:I|I'm|I’m|I've|I’ve|I'd|I’d|me|my|we|we're|we’re|we've|we’ve|we'd|we’d|us|our|ours|you|your)\b/i;
/**
 * What follows unmarked words to name whose they are ("— Dana Reyes, Acme", "(Acme Health)", as the
 * attribution check writes it) and the emphasis around them.
 */
const TRAILING_ATTRIBUTION = /\s+(?:(?:—|–|--|-)\s+(?:\*\*|__)?[A-Z][^—–\n]{0,100}|\([^()\n]{1,120}\))\s*$/;
const EMPHASIS = /^[*_]+|[*_]+$/g;

/** The names of the list lines that may give someone's words: each is judged a person's or not by the caller. */
export function namedLineLabels(passages: readonly string[]): string[] {
  const out = new Set<string>();
  for (const passage of passages)
    for (const line of passage.split('\n')) {
      const m = NAMED_LINE.exec(line);
      if (m && !hasMarks(m[2]!) && SPEAKS.test(m[2]!)) out.add(m[1]!);
    }
  return [...out];
}

const hasMarks = (text: string): boolean => MARKED.some((re) => new RegExp(re.source, re.flags).test(text));
function bare(text: string): string {
  let out = text.trim();
  for (let cut = out.replace(TRAILING_ATTRIBUTION, ''); cut !== out; cut = out.replace(TRAILING_ATTRIBUTION, ''))
    out = cut.trim();
  return out.replace(EMPHASIS, '').trim();
}

/** The quotations of a line; `people` holds the names (as written) that are people's. */
export function quotationsIn(line: string, people: ReadonlySet<string>): Quotation[] {
  const out: Quotation[] = [];
  let rest = line;
  for (const re of MARKED) {
    for (const m of rest.matchAll(re)) {
      const before = line.slice(0, m.index);
      // A string in JSON ({"answer":"Acme Health"}) touches its bracket, comma or colon; prose leaves a space.
      if (/[{[,:]$/.test(before)) continue;
      out.push({ text: m[1]!, attributed: ATTRIBUTION.test(before) });
    }
    // A German closing mark (“) would open an English quotation: what one pattern took, the next does not read.
    rest = rest.replace(re, (s) => ' '.repeat(s.length));
  }
  if (out.length > 0) return out;
  const quoted = BLOCKQUOTE.exec(line);
  if (quoted && !OWN_NOTE.test(quoted[1]!)) {
    const text = bare(quoted[1]!);
    return text ? [{ text, attributed: false }] : [];
  }
  const named = NAMED_LINE.exec(line);
  if (named && people.has(named[1]!) && SPEAKS.test(named[2]!)) {
    const text = bare(named[2]!);
    return text ? [{ text, attributed: true }] : [];
  }
  return [];
}
