/**
 * Knowledge figures (issue 25 item 8): parsing a large PDF (time and peak memory as the file grows)
 * and searching 10,000 knowledge nodes (semantic, keyword, hybrid) on the embedded default.
 *   npx tsx bench/knowledge.ts [--sizes-mb 5,20,50] [--nodes 10000]
 */
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { createWorkspace } from '../functions/identity/members.js';
import { parseDocument } from '../functions/knowledge/parsers/index.js';
import { searchKnowledgeNodes } from '../functions/knowledge/search.js';
import { newId } from '../platform/ids.js';
import { migrateDatabase } from '../platform/db/migrate.js';
import { openPglite } from '../platform/db/pglite.js';
import { LocalHashEmbedder } from '../platform/model/local.js';
import { documentGroups, knowledgeNodes, knowledgeNodeVectors, storedFiles } from '../schema/knowledge.js';

const arg = (name: string, fallback: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? (process.argv[i + 1] ?? fallback) : fallback;
};
const SIZES_MB = arg('sizes-mb', '5,20,50').split(',').map(Number);
const NODES = Number(arg('nodes', '10000'));
const WORDS =
  'renewal pricing onboarding security migration support contract seats discount integration latency roadmap'.split(
    ' ',
  );

/** A text PDF of about `mb` megabytes: uncompressed content streams, 40 lines a page. */
async function pdfOfSize(mb: number): Promise<Uint8Array> {
  const pdf = await PDFDocument.create();
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  let page = 0;
  let bytes: Uint8Array = new Uint8Array();
  const batch = 200;
  while (bytes.length < mb * 1024 * 1024) {
    for (let p = 0; p < batch; p++, page++) {
      const sheet = pdf.addPage([612, 792]);
      for (let line = 0; line < 40; line++) {
        const words = Array.from({ length: 12 }, (_, i) => WORDS[(page * 7 + line * 3 + i) % WORDS.length]).join(' ');
        sheet.drawText(`${page}.${line} ${words}.`, {
          x: 40,
          y: 760 - line * (line % 5 === 4 ? 24 : 18),
          size: 10,
          font,
        });
      }
    }
    bytes = await pdf.save({ useObjectStreams: false });
  }
  return bytes;
}

async function parseFigures(): Promise<void> {
  console.log('PDF parse (unpdf page by page, node keys):');
  console.log('size_mb  pages  nodes  parse_s  peak_rss_mb  rss_before_mb');
  for (const mb of SIZES_MB) {
    const bytes = await pdfOfSize(mb);
    global.gc?.();
    const before = process.memoryUsage().rss;
    let peak = before;
    const timer = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss);
    }, 20);
    let pages = 0;
    const started = performance.now();
    const nodes = await parseDocument('pdf', bytes, (_page, total) => {
      pages = total;
      peak = Math.max(peak, process.memoryUsage().rss);
    });
    const seconds = (performance.now() - started) / 1000;
    clearInterval(timer);
    console.log(
      `${(bytes.length / 1024 / 1024).toFixed(1).padStart(7)}  ${String(pages).padStart(5)}  ${String(nodes.length).padStart(5)}  ${seconds.toFixed(1).padStart(7)}  ${(peak / 1024 / 1024).toFixed(0).padStart(11)}  ${(before / 1024 / 1024).toFixed(0).padStart(13)}`,
    );
  }
}

async function searchFigures(): Promise<void> {
  const handle = await openPglite({});
  await migrateDatabase(handle);
  const { workspaceId } = await createWorkspace(handle.db, { name: 'bench' });
  const embedder = new LocalHashEmbedder();
  const fileId = newId();
  const groupId = newId();
  await handle.db.insert(storedFiles).values({
    id: fileId,
    workspaceId,
    purpose: 'knowledge',
    filename: 'bench.md',
    contentType: 'text/markdown',
    byteSize: 1,
    storageKey: `${workspaceId}/${fileId}`,
    sha256: '0',
  });
  await handle.db
    .insert(documentGroups)
    .values({ id: groupId, workspaceId, fileId, title: 'Bench', format: 'markdown', status: 'ready' });
  for (let i = 0; i < NODES; i += 500) {
    const texts = Array.from({ length: Math.min(500, NODES - i) }, (_, j) => {
      const n = i + j;
      return `Node ${n}: customers asked about ${WORDS[n % WORDS.length]} and ${WORDS[(n * 5 + 3) % WORDS.length]} during the ${WORDS[(n * 7 + 1) % WORDS.length]} review.`;
    });
    const vectors = await embedder.embed(texts);
    await handle.db.insert(knowledgeNodes).values(
      texts.map((text, j) => ({
        workspaceId,
        documentGroupId: groupId,
        nodeKey: `p-${(i + j).toString(16).padStart(8, '0')}`,
        kind: 'paragraph' as const,
        position: i + j,
        heading: '',
        text,
      })),
    );
    await handle.db.insert(knowledgeNodeVectors).values(
      texts.map((_, j) => ({
        workspaceId,
        documentGroupId: groupId,
        nodeKey: `p-${(i + j).toString(16).padStart(8, '0')}`,
        embedder: embedder.id,
        embedding: vectors[j] ?? [],
      })),
    );
  }
  await handle.db.execute('analyze');
  console.log(`\nSearch over ${NODES} nodes (PGlite, exact cosine scan; median of 15):`);
  console.log('mode      median_ms  p90_ms');
  for (const mode of ['semantic', 'keyword', 'hybrid'] as const) {
    const times: number[] = [];
    for (let k = 0; k < 15; k++) {
      const started = performance.now();
      await searchKnowledgeNodes(
        { db: handle.db, embedder },
        { workspaceId, query: `questions about ${WORDS[k % WORDS.length]} pricing`, limit: 10, mode },
      );
      times.push(performance.now() - started);
    }
    times.sort((a, b) => a - b);
    console.log(`${mode.padEnd(8)}  ${times[7]?.toFixed(1).padStart(9)}  ${times[13]?.toFixed(1).padStart(6)}`);
  }
  await handle.close();
}

await parseFigures();
await searchFigures();
