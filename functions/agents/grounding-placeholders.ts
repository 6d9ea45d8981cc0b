/**
 * What a placeholder is (the finished check, grounding-finished.ts): a token where a value belongs but
 * letters or a slot stand in for it. Three shapes, each held for any wording of it:
 *
 * - a masked number: a run of X or # where digits go, with what only a number carries — a thousands
 *   or decimal separator ("X,XXX", "#,###", "X.X"), a currency sign ("$X", "$XX.XM") or a percent sign
 *   ("XX%") — and the masked period "Q# ####"; a lone capital N or X (or a run of X) before a plural
 *   noun, where a count goes ("N accounts", "across X deals");
 * - a template slot: a bracketed Title-Case name of a field ("[Account Name]", "[Customer]"), an
 *   angle-bracketed one ("<company>", "<account name>"), braces ("{{name}}", "{company}"), and "[insert …]";
 * - a marker left in: TODO, TBD, FIXME, a value rendered as NaN or [object Object].
 *
 * Real text is not one: a word with X in it ("Xero", "X-ray", "SaaS", a product "X1"), "N/A", a markdown
 * link or reference ("[Docs](…)", "[Docs][1]"), an HTML element ("<br>"), a bracketed name the answer's
 * blocks hold (an account "[Acme Health]" of a table or a quote), and the words of a kept quote, which
 * are the speaker's and are never altered.
 */

const MASKED_NUMBER = [
  // A masked period: "Q# ####", "##".
  /(?<![\w#])#{2,}(?![\w#])/,
  /(?<![\w#])[A-Za-z]#(?=\s+#)/,
  // A currency sign before a mask: "$X", "$X,XXX", "€XX.X", "$N".
  /[$€£]\s?(?:X+|#+|N)(?:[.,](?:X+|#+))*(?:\s?[KkMmBb])?(?![\w])/,
  // A mask with a percent sign: "XX%", "X.X %", "N%".
  /(?<![\w.$])(?:X+|#+|N)(?:[.,](?:X+|#+))*\s?%/,
  // A mask with a thousands or decimal separator: "X,XXX", "#,###", "XX.X".
  /(?<![\w.,$])(?:X+|#+)(?:[.,](?:X+|#+))+(?![\w])/,
];

/**
 * A lone N or X (or XX, XXX) where a count goes: before a plural noun (a lower-case word ending in "s",
 * not in "ss", "is" or "us" — "axis", "status" are singular), and neither part of a name ("Plan X deals":
 * a capitalised word before it that does not open the sentence) nor a name before its verb ("X has").
 */
const COUNTED = /(?<![\w/.-])(N|X{1,3})\s+(?!(?:has|was|does|says|goes|gets|makes)\b)[a-z]{2,}[^\Wsiu]s\b/g;
/** The word before a position, and whether it opens its sentence (nothing but a list marker or a stop before it). */
function wordBefore(text: string, at: number): { word: string; opens: boolean } | null {
  const m = /([\p{L}\p{N}'’]+)([^\p{L}\p{N}]*)$/u.exec(text.slice(0, at));
  if (!m) return null;
  const before = text.slice(0, m.index);
  return { word: m[1]!, opens: /(?:^|[.!?:]\s+)(?:[-*>]\s+|\d+\.\s+|[*_]{1,2})*$/.test(before) };
}
const isCount = (prose: string, m: RegExpMatchArray): boolean => {
  const before = wordBefore(prose, m.index ?? 0);
  return !before || !/^[A-Z][a-z]/.test(before.word) || before.opens;
};

/** A slot that names a field: "[Account Name]", "[Customer]", not a link ("[Docs](…)", "[Docs][1]", "[Docs]: …"). */
const BRACKET_SLOT =
  /\[([A-Z][a-z]+(?:[ _-][A-Z][a-z]*)*|[A-Z]{2,}(?:[ _][A-Z]+)*)\](?!\s*[([]|:\s*(?:https?:\/\/|\/|#))/g;
/** HTML elements a markdown answer may hold; any other word in angle brackets is a slot ("<company>"). */
const HTML_ELEMENTS = new Set(
  'a abbr b br code del details div em hr i img ins kbd li mark ol p pre s small span strong sub summary sup table tbody td th thead tr u ul'.split(
    ' ',
  ),
);
const ANGLE_SLOT = /<([a-z][a-z_]*(?:[ _-][a-z]+)*)>/gi;
const OTHER_SLOT =
  /\{\{[^}]*\}\}|\{[a-z_][a-z0-9_ ]*\}|\[(?:[Ii]nsert|[Pp]laceholder|tbd|todo)\b[^\]]*\]|\b(?:TODO|TBD|FIXME)\b|\bNaN\b|\[object Object\]/;

/** The placeholder in a line of prose, or null. `names`: what the blocks hold, lower case; `quotes`: kept quotes' words. */
export function placeholderIn(line: string, names: ReadonlySet<string>, quotes: readonly string[]): string | null {
  let prose = line.replace(/^#{1,6}\s/, '').replace(/`[^`]*`/g, ' ');
  for (const quote of quotes) if (quote.length > 0) prose = prose.split(quote).join(' ');
  for (const mask of MASKED_NUMBER) {
    const m = mask.exec(prose);
    if (m) return m[0];
  }
  for (const m of prose.matchAll(COUNTED)) if (isCount(prose, m) && !names.has(m[1]!.toLowerCase())) return m[0];
  for (const m of prose.matchAll(BRACKET_SLOT)) if (!names.has(m[1]!.toLowerCase())) return m[0];
  for (const m of prose.matchAll(ANGLE_SLOT))
    if (!HTML_ELEMENTS.has(m[1]!.toLowerCase()) && !names.has(m[1]!.toLowerCase())) return m[0];
  return OTHER_SLOT.exec(prose)?.[0] ?? null;
}
