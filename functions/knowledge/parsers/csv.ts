import { parse } from 'csv-parse/sync';
import type { ParseBudget } from '../ingest-limits.js';
import { rowText } from './markdown.js';
import { tidy, type ParsedNode } from './node.js';

/** Characters of CSV parsed between two looks at the budget (cut at a row's end). */
const CHUNK_CHARS = 256 * 1024;

/**
 * A CSV file: its first row is the header; every other row is one table-row node. Parsed a chunk
 * of rows at a time, each chunk ending at a line break outside quotes (an even number of quote
 * characters before it: a doubled quote inside a field counts twice), with the budget looked at
 * between chunks.
 */
export async function parseCsv(source: string, budget: ParseBudget): Promise<ParsedNode[]> {
  const nodes: ParsedNode[] = [];
  let names: string[] | null = null;
  for (let at = 0; at < source.length; ) {
    await budget.step();
    const end = chunkEnd(source, at);
    budget.addText(end - at);
    const rows = parse(source.slice(at, end), {
      relax_column_count: true,
      skip_empty_lines: true,
      bom: at === 0,
    }) as string[][];
    at = end;
    for (const cells of rows) {
      if (!names) {
        names = cells.map(tidy);
        continue;
      }
      const text = rowText(names, cells.map(tidy));
      if (text !== '') budget.add(nodes, [{ kind: 'table_row', heading: '', text, page: null }]);
    }
  }
  return nodes;
}

/** The end of the chunk starting at `from`: just after the first line break outside quotes past CHUNK_CHARS, or the end. */
function chunkEnd(source: string, from: number): number {
  let quotes = 0;
  for (let i = from; i < source.length; i++) {
    const c = source.charCodeAt(i);
    if (c === 34) quotes++;
    else if (c === 10 && i - from >= CHUNK_CHARS && quotes % 2 === 0) return i + 1;
  }
  return source.length;
}
