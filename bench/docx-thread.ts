/**
 * What a DOCX conversion costs the event loop: the same realistic Word document (40 sections of 25
 * paragraphs) converted five times in a row by mammoth on the event loop (how a Worker converts, and how
 * Node did before) and on the Node entry's worker thread (functions/knowledge/parsers/docx-thread.ts),
 * alternating in the same run, with the event loop's delay (p99 and max) while each converts. The
 * conversion's own time is beside it: a thread moves the work, it does not make it cheaper.
 *
 *   npx tsx bench/docx-thread.ts   (wired into npm run bench)
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Document, HeadingLevel, Packer, Paragraph } from 'docx';
import { inProcessDocxToHtml } from '../functions/knowledge/parsers/docx-html.js';
import { docxThreadPool } from '../functions/knowledge/parsers/docx-thread.js';
import { printTable } from './report.js';

export const docxThreadTitle =
  'DOCX conversion (mammoth): event-loop delay while a realistic DOCX converts 5 times, on the event loop vs. on a worker thread (alternating rounds)';

const ROUNDS = 2;
const CONVERSIONS = 5;

async function realisticDocx(): Promise<Uint8Array> {
  const children: Paragraph[] = [];
  const words = 'renewal pricing onboarding security migration support contract seats discount ';
  for (let s = 0; s < 40; s++) {
    children.push(new Paragraph({ text: `Section ${s + 1}`, heading: HeadingLevel.HEADING_1 }));
    for (let p = 0; p < 25; p++) children.push(new Paragraph(words.repeat(8)));
  }
  return new Uint8Array(await Packer.toBuffer(new Document({ sections: [{ children }] })));
}

export async function benchDocxThread(): Promise<Record<string, string | number>[]> {
  const bytes = await realisticDocx();
  const pool = docxThreadPool(1);
  const rows: Record<string, string | number>[] = [];
  try {
    await pool.toHtml(bytes); // the thread's start and the JIT, not reported
    await inProcessDocxToHtml(bytes);
    for (let round = 1; round <= ROUNDS; round++)
      for (const [where, convert] of [
        ['event loop', inProcessDocxToHtml],
        ['worker thread', pool.toHtml],
      ] as const) {
        const loop = monitorEventLoopDelay({ resolution: 1 });
        loop.enable();
        const started = performance.now();
        for (let i = 0; i < CONVERSIONS; i++) await convert(bytes);
        const ms = performance.now() - started;
        loop.disable();
        rows.push({
          round,
          'converted on': where,
          [`${CONVERSIONS} conversions ms`]: ms.toFixed(0),
          'loop p99 ms': (loop.percentile(99) / 1e6).toFixed(1),
          'loop max ms': (loop.max / 1e6).toFixed(1),
        });
      }
  } finally {
    await pool.close();
  }
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) printTable(docxThreadTitle, await benchDocxThread());
