import { fnv1a } from '../../../platform/fnv1a.js';
import type { NodeKind } from '../../../schema/knowledge.js';
import type { ParseBudget } from '../ingest-limits.js';

/** A piece of a document as a parser yields it, in reading order. */
export interface ParsedNode {
  kind: NodeKind;
  /** The heading the node sits under ("" at the top); a section's own heading is its text. */
  heading: string;
  text: string;
  /** The page (PDF) it is on; null for formats without pages. */
  page: number | null;
}

export interface KeyedNode extends ParsedNode {
  nodeKey: string;
  position: number;
}

/** The longest node kept whole; a longer paragraph is cut at sentence ends into several nodes. */
export const MAX_NODE_CHARS = 2_000;

const KIND_PREFIX: Record<NodeKind, string> = { section: 's', paragraph: 'p', table_row: 'r' };

/**
 * Stable keys: a node's key is its kind and a hash of its heading and text, plus its occurrence
 * when the same text repeats under the same heading. The same document therefore always yields the
 * same keys (a pin or a quote's source survives re-uploading it), and editing one paragraph changes
 * that paragraph's key only.
 */
export async function withNodeKeys(nodes: Iterable<ParsedNode>, budget: ParseBudget): Promise<KeyedNode[]> {
  const seen = new Map<string, number>();
  const keyed: KeyedNode[] = [];
  for (const node of nodes) {
    if (keyed.length % 256 === 0) await budget.step();
    const hash = fnv1a(`${node.heading}\u0000${node.text}`).toString(16).padStart(8, '0');
    const base = `${KIND_PREFIX[node.kind]}-${hash}`;
    const count = (seen.get(base) ?? 0) + 1;
    seen.set(base, count);
    keyed.push({ ...node, nodeKey: count === 1 ? base : `${base}-${count}`, position: keyed.length });
  }
  return keyed;
}

/** Whitespace runs to one space; nothing else is changed (quotes are checked against this text). */
export const tidy = (text: string): string => text.replace(/\s+/g, ' ').trim();

/** A paragraph too long for one node, cut at sentence ends (or hard, for text without any). */
export function splitLong(text: string): string[] {
  if (text.length <= MAX_NODE_CHARS) return [text];
  const pieces: string[] = [];
  let rest = text;
  while (rest.length > MAX_NODE_CHARS) {
    const window = rest.slice(0, MAX_NODE_CHARS);
    const cut = Math.max(window.lastIndexOf('. '), window.lastIndexOf('? '), window.lastIndexOf('! '));
    const at = cut > MAX_NODE_CHARS / 2 ? cut + 1 : MAX_NODE_CHARS;
    pieces.push(rest.slice(0, at).trim());
    rest = rest.slice(at).trim();
  }
  if (rest) pieces.push(rest);
  return pieces;
}

/** Paragraph nodes of one block of text under a heading (long ones cut). */
export function paragraphNodes(text: string, heading: string, page: number | null): ParsedNode[] {
  const clean = tidy(text);
  if (!clean) return [];
  return splitLong(clean).map((piece) => ({ kind: 'paragraph' as const, heading, text: piece, page }));
}

/**
 * Text gathered for one paragraph is cut into nodes once it passes this many characters, so a
 * document without paragraph breaks is never held (and tidied) as one string of its whole size.
 */
export const MAX_PENDING_CHARS = 64 * 1024;

/** Where to cut pending text that ran past MAX_PENDING_CHARS: after its last whitespace (or at the end, without any). */
export function pendingCut(text: string): number {
  const at = Math.max(text.lastIndexOf(' '), text.lastIndexOf('\n'), text.lastIndexOf('\t'));
  return at > 0 ? at : text.length;
}
