import { parse } from 'csv-parse/sync';
import { rowText } from './markdown.js';
import { tidy, type ParsedNode } from './node.js';

/** A CSV file: its first row is the header; every other row is one table-row node. */
export function parseCsv(source: string): ParsedNode[] {
  const rows = parse(source, { relax_column_count: true, skip_empty_lines: true, bom: true }) as string[][];
  const [header, ...body] = rows;
  if (!header) return [];
  const names = header.map(tidy);
  return body
    .map((cells) => rowText(names, cells.map(tidy)))
    .filter((text) => text !== '')
    .map((text) => ({ kind: 'table_row' as const, heading: '', text, page: null }));
}
