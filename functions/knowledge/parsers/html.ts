import { Parser } from 'htmlparser2';
import type { ParseBudget } from '../ingest-limits.js';
import { rowText } from './markdown.js';
import { MAX_PENDING_CHARS, paragraphNodes, pendingCut, tidy, type ParsedNode } from './node.js';

/** Characters of HTML written to the parser between two looks at the budget. */
const CHUNK_CHARS = 64 * 1024;

/** Elements whose content is never text of the document: scripts and styles are dropped whole. */
const DROPPED = new Set(['script', 'style', 'noscript', 'template', 'iframe', 'object', 'embed', 'svg', 'head']);
const HEADINGS = new Set(['h1', 'h2', 'h3', 'h4', 'h5', 'h6']);
/** Elements that end the paragraph before them and start a new one. */
const BLOCKS = new Set([
  'p',
  'div',
  'li',
  'ul',
  'ol',
  'blockquote',
  'pre',
  'section',
  'article',
  'header',
  'footer',
  'main',
  'aside',
  'br',
  'hr',
  'table',
  'dd',
  'dt',
  'figcaption',
]);

/**
 * HTML (and DOCX, which mammoth turns into HTML): headings open sections, block elements make
 * paragraphs, table rows become table-row nodes under the table's first row as header. Only text is
 * kept: scripts, styles and every attribute are dropped here, so nothing executable reaches a node.
 * The source (a string, or pieces as they are decoded: parsers/index.ts) is written to the parser
 * a chunk at a time, with the budget looked at between chunks; the parser carries a tag or an entity
 * cut between two chunks over to the next.
 */
export async function parseHtml(source: string | AsyncIterable<string>, budget: ParseBudget): Promise<ParsedNode[]> {
  const nodes: ParsedNode[] = [];
  let heading = '';
  let buffer = '';
  let dropped = 0;
  let inHeading = false;
  let row: string[] | null = null;
  let cell: string | null = null;
  let header: string[] | null = null;

  const flush = () => {
    if (inHeading) return;
    budget.add(nodes, paragraphNodes(buffer, heading, null));
    buffer = '';
  };
  const parser = new Parser(
    {
      onopentag(name) {
        if (DROPPED.has(name)) {
          dropped++;
          return;
        }
        if (dropped > 0) return;
        if (HEADINGS.has(name)) {
          flush();
          inHeading = true;
        } else if (name === 'tr') {
          flush();
          row = [];
        } else if ((name === 'td' || name === 'th') && row) {
          cell = '';
        } else if (name === 'table') {
          flush();
          header = null;
        } else if (BLOCKS.has(name)) flush();
      },
      ontext(text) {
        if (dropped > 0) return;
        if (cell !== null) cell += text;
        else buffer += text;
      },
      onclosetag(name) {
        if (DROPPED.has(name)) {
          dropped = Math.max(0, dropped - 1);
          return;
        }
        if (dropped > 0) return;
        if (HEADINGS.has(name) && inHeading) {
          inHeading = false;
          const text = tidy(buffer);
          buffer = '';
          if (text) {
            heading = text;
            budget.add(nodes, [{ kind: 'section', heading, text, page: null }]);
          }
        } else if ((name === 'td' || name === 'th') && row && cell !== null) {
          row.push(tidy(cell));
          cell = null;
        } else if (name === 'tr' && row) {
          const cells = row;
          row = null;
          if (cells.every((c) => c === '')) return;
          if (!header) header = cells;
          else budget.add(nodes, [{ kind: 'table_row', heading, text: rowText(header, cells), page: null }]);
        } else if (name === 'table') header = null;
        else if (BLOCKS.has(name)) flush();
      },
    },
    { decodeEntities: true, lowerCaseTags: true },
  );
  for await (const piece of typeof source === 'string' ? [source] : source)
    for (let at = 0; at < piece.length; at += CHUNK_CHARS) {
      await budget.step();
      const chunk = piece.slice(at, at + CHUNK_CHARS);
      budget.addText(chunk.length);
      parser.write(chunk);
      // Text without a block element to end it is cut into nodes as it grows.
      if (!inHeading && buffer.length > MAX_PENDING_CHARS) {
        const cut = pendingCut(buffer);
        budget.add(nodes, paragraphNodes(buffer.slice(0, cut), heading, null));
        buffer = buffer.slice(cut);
      }
    }
  parser.end();
  flush();
  return nodes;
}
