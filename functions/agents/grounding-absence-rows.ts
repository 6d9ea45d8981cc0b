import { contentWords, stemWord } from '../../platform/model/local.js';
import type { BlockDraft } from './answer.js';

/**
 * The absences an answer's own verified tables hold (the absence rule, grounding-absence.ts). A table
 * kept by the verifier was re-run and returned the same rows, so what its rows say is the data's:
 *
 * - a cell that states an absence itself (a renewal's "Why at risk": "no champion identified; no
 *   conversation in 45 days") backs the same words in the prose, clause by clause;
 * - a row whose cell for a field holds nothing (empty, 0, "none", "unknown", "n/a", a dash) backs "no
 *   <field> …" ("no champion identified" beside a Champion cell that is unknown), where every word of
 *   the column's label is in the clause.
 *
 * Which rows: those the sentence names by their first column (the row's name, such as the renewal's
 * deal); a sentence that names none speaks of every row, so every row must hold it.
 */

type Table = Extract<BlockDraft, { kind: 'table' }>;

const NOTHING_CELL = /^(?:none|unknown|n\/?a|nobody|no one|not identified|unidentified|not assessed|\(none\)|[-–—])$/i;
const saysNothing = (v: unknown): boolean =>
  v === null ||
  v === undefined ||
  (typeof v === 'number' && v === 0) ||
  (typeof v === 'string' && (v.trim() === '' || v.trim() === '0' || NOTHING_CELL.test(v.trim().replace(/\.$/, ''))));

/** A clause that opens with a negative quantifier, up to its clause's end: "no economic buyer identified". */
const NEGATIVE_CLAUSE = /(?<![\p{L}\p{N}])no\s+[^;:,.()—–\n]+/giu;
const clauseOf = (s: string): string =>
  s
    .trim()
    .replace(/[.\s]+$/, '')
    .toLowerCase();
const stemsOf = (text: string): Set<string> => new Set(contentWords(text).map(stemWord));

/** The rows of a table the sentence is about: those it names by their first column, else every row. */
function rowsNamed(table: Table, sentence: string): Record<string, unknown>[] {
  const first = table.columns[0]?.key;
  const lower = sentence.toLowerCase();
  const named = table.data.filter((row) => {
    const name = first === undefined ? undefined : row[first];
    return typeof name === 'string' && name.trim().length >= 3 && lower.includes(name.trim().toLowerCase());
  });
  return named.length > 0 ? named : table.data;
}

/** Whether every row holds the clause in a cell of its own (the analysis's own words for it). */
const statedInEveryRow = (rows: readonly Record<string, unknown>[], clause: string): boolean =>
  rows.length > 0 &&
  rows.every((row) =>
    Object.values(row).some((v) => typeof v === 'string' && v.split(';').some((part) => clauseOf(part) === clause)),
  );

/** Whether "no <field> …" names a column every row holds nothing in. */
function emptyInEveryRow(table: Table, rows: readonly Record<string, unknown>[], clause: string): boolean {
  if (rows.length === 0) return false;
  const words = stemsOf(clause);
  return table.columns.some((c) => {
    const label = stemsOf(c.label);
    return label.size > 0 && [...label].every((w) => words.has(w)) && rows.every((row) => saysNothing(row[c.key]));
  });
}

/**
 * The sentence's claim with every clause a kept table holds taken out (the rest is still held to the
 * absence rule). `sentence` names the rows; `claim` is what is read for claims.
 */
export function withoutTableBackedClauses(claim: string, sentence: string, kept: readonly BlockDraft[]): string {
  const tables = kept.filter((b): b is Table => b.kind === 'table' && b.data.length > 0);
  if (tables.length === 0) return claim;
  let out = claim;
  for (const m of claim.matchAll(NEGATIVE_CLAUSE)) {
    const clause = clauseOf(m[0]);
    const backed = tables.some((t) => {
      const rows = rowsNamed(t, sentence);
      return statedInEveryRow(rows, clause) || emptyInEveryRow(t, rows, clause);
    });
    if (backed) out = out.replace(m[0], ' ');
  }
  return out;
}
