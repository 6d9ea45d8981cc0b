/**
 * The walks over a caller's input, on bodies that are nothing but nesting (the shape that made a
 * walk copying its path per level cost depth²): each is timed beside a plain JSON.parse of the same
 * bytes, measured in the same run. A walk that is linear in the body's size keeps about the same
 * ratio to the parse, and the same time per level, at every size; a quadratic one's would grow about
 * 4x with each 4x step in size (a path copied per level cost 86 s on an 80 KB body).
 * Run by run.ts, or alone:
 *
 *   npx tsx bench/input-walks.ts
 *
 * The API refuses such a body on its text (platform/json-depth.ts) before parsing or walking it;
 * the walks are timed on it anyway, with no limit, because they also serve input that arrives
 * decoded and must stay linear whatever reaches them.
 */
import { fieldsOf } from '../functions/http/storable-text-guard.js';
import { canonicalJson } from '../platform/canonical-json.js';
import { jsonTextTooDeep, MAX_JSON_DEPTH, valueTooDeep } from '../platform/json-depth.js';
import { findUnstorableText } from '../platform/storable-text.js';
import { printTable } from './report.js';

export const inputWalksTitle =
  'Input walks on a body of nothing but nesting ({"a":[{"a":[...]}]}) vs. JSON.parse of the same bytes (median of 5, after a warm-up)';

const SIZES_KIB = [64, 256, 1024];

/** `{"a":[{"a":[ … "leaf" … ]}]}` of about `bytes` bytes: an object and an array per 8 bytes. */
function nestedText(bytes: number): string {
  const pairs = Math.floor((bytes - 6) / 8);
  return `${'{"a":['.repeat(pairs)}"leaf"${']}'.repeat(pairs)}`;
}

function medianMs(run: () => unknown, times = 5): number {
  run(); // Warm-up: the first call pays for compiling the walk, not for walking.
  const samples: number[] = [];
  for (let i = 0; i < times; i++) {
    const start = performance.now();
    run();
    samples.push(performance.now() - start);
  }
  return samples.sort((a, b) => a - b)[Math.floor(times / 2)] as number;
}

export function benchInputWalks(): Record<string, string | number>[] {
  const rows: Record<string, string | number>[] = [];
  for (const kib of SIZES_KIB) {
    const text = nestedText(kib * 1024);
    const value = JSON.parse(text) as unknown;
    const parse = medianMs(() => JSON.parse(text));
    const walks: [string, () => unknown][] = [
      [`depth check on the text (stops at ${MAX_JSON_DEPTH + 1})`, () => jsonTextTooDeep(text)],
      ['depth check on the text, no limit', () => jsonTextTooDeep(text, Number.POSITIVE_INFINITY)],
      ['depth check on the value, no limit', () => valueTooDeep(value, Number.POSITIVE_INFINITY)],
      ['findUnstorableText', () => findUnstorableText(value)],
      ['canonicalJson', () => canonicalJson(value)],
    ];
    for (const [walk, run] of walks) {
      const ms = medianMs(run);
      const depth = (text.length - 6) / 4;
      rows.push({
        body: `${kib} KiB`,
        depth,
        walk,
        'walk ms': ms.toFixed(1),
        'JSON.parse ms': parse.toFixed(1),
        'walk / parse': (ms / parse).toFixed(3),
        'walk ns per level': ((ms * 1e6) / depth).toFixed(0),
      });
    }
  }
  // A form body of nothing but distinct names (`f0=&f1=&…`): the shape that made a per-name look-up of
  // values rescan every pair (a 1 MiB form held the event loop for minutes). Timed beside the parse.
  for (const kib of SIZES_KIB) {
    const text = formText(kib * 1024);
    const parse = medianMs(() => new URLSearchParams(text));
    const params = new URLSearchParams(text);
    const ms = medianMs(() => findUnstorableText(fieldsOf(params)));
    const fields = [...params.keys()].length;
    rows.push({
      body: `${kib} KiB`,
      depth: 1,
      walk: `form fields by name + findUnstorableText (${fields} names)`,
      'walk ms': ms.toFixed(1),
      'JSON.parse ms': `${parse.toFixed(1)} (URLSearchParams)`,
      'walk / parse': (ms / parse).toFixed(3),
      'walk ns per level': '-',
    });
  }
  return rows;
}

/** `f0=&f1=&…` of `bytes` bytes. */
function formText(bytes: number): string {
  const parts: string[] = [];
  let size = -1;
  for (let i = 0; size < bytes; i++) {
    const part = `f${i}=`;
    parts.push(part);
    size += part.length + 1;
  }
  return parts.join('&').slice(0, bytes);
}

if (import.meta.url === `file://${process.argv[1]}`) printTable(inputWalksTitle, benchInputWalks());
