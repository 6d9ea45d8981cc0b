import { parse } from 'csv-parse/sync';
import type { ParseBudget } from '../ingest-limits.js';
import { rowText } from './markdown.js';
import { tidy, type ParsedNode } from './node.js';

/** Characters of CSV gathered before its complete rows are parsed. */
const CHUNK_CHARS = 256 * 1024;
/**
 * The most CSV held without a row's end outside quotes: past it the file is refused (an unclosed
 * quote would otherwise make the rest of the document one field, held and parsed in one piece).
 */
export const MAX_UNENDED_CSV_CHARS = 4 * 1024 * 1024;

/**
 * A CSV file: its first row is the header; every other row is one table-row node. Read from its
 * pieces as they are decoded (parsers/index.ts: the document is never one string) and parsed a
 * chunk of complete rows at a time: a chunk ends just after the last line break outside quotes (an
 * even number of quote characters before it: a doubled quote inside a field counts twice), the rest
 * waits for the next piece. The budget is looked at between chunks.
 */
export async function parseCsv(source: string | AsyncIterable<string>, budget: ParseBudget): Promise<ParsedNode[]> {
  const nodes: ParsedNode[] = [];
  let names: string[] | null = null;
  let first = true;
  const parseRows = async (text: string) => {
    await budget.step();
    budget.addText(text.length);
    const rows = parse(text, { relax_column_count: true, skip_empty_lines: true, bom: first }) as string[][];
    first = false;
    for (const cells of rows) {
      if (!names) {
        names = cells.map(tidy);
        continue;
      }
      const row = rowText(names, cells.map(tidy));
      if (row !== '') budget.add(nodes, [{ kind: 'table_row', heading: '', text: row, page: null }]);
    }
  };
  // `held` is CSV not parsed yet; up to `scanned` its quotes are counted (`inQuotes` at `scanned`),
  // and `cut` is just after its last line break outside quotes (0: none yet).
  let held = '';
  let scanned = 0;
  let inQuotes = false;
  let cut = 0;
  for await (const piece of typeof source === 'string' ? [source] : source) {
    held += piece;
    for (let i = scanned; i < held.length; i++) {
      const c = held.charCodeAt(i);
      if (c === 34) inQuotes = !inQuotes;
      else if (c === 10 && !inQuotes) {
        cut = i + 1;
        if (cut >= CHUNK_CHARS) {
          await parseRows(held.slice(0, cut));
          held = held.slice(cut);
          i -= cut;
          cut = 0;
        }
      }
    }
    scanned = held.length;
    if (held.length - cut > MAX_UNENDED_CSV_CHARS)
      throw new Error(
        `a row runs on for more than ${MAX_UNENDED_CSV_CHARS.toLocaleString('en-US')} characters without ending (an unclosed quote?)`,
      );
  }
  if (held !== '') await parseRows(held);
  return nodes;
}
