/**
 * Knowledge figures, each beside a baseline measured in the same run:
 * - upload: generated PDFs (10, 20 and 50 MB by default) streamed through POST /knowledge-base into
 *   a folder file store (time and peak RSS growth), beside a bare route writing the same body to a file;
 * - ingest: each document parsed and embedded by the knowledge_ingest run until ready (time and peak
 *   RSS growth), beside the stored file read and parsed alone;
 * - search: 10,000 knowledge nodes by meaning, words and both (searchKnowledgeNodes), beside a
 *   hand-written exact cosine scan of the same vectors.
 *
 * The PDFs (bench/knowledge-pdf.ts) are `images` by default: like a real large PDF, every page carries
 * an incompressible picture and a few paragraphs, about 26 nodes a MB. `--pdf text` makes text-only
 * pages instead (about 15,000 nodes a MB: keep such sizes small). Every size is measured in a fresh
 * process (bench/knowledge-ingest.ts); bench/peak-rss.ts says how the peak RSS is measured. The last
 * rows give the slope of the peak RSS growth against the file size: flat memory is a slope near 0.
 *
 *   npx tsx bench/knowledge.ts [--sizes-mb 10,20,50] [--nodes 10000] [--pdf images|text]   (wired into npm run bench)
 */
import { printTable } from './report.js';
import { type IngestFigures, ingestFiguresInChild } from './knowledge-ingest.js';
import { BENCH_PDF_KINDS, type BenchPdfKind } from './knowledge-pdf.js';
import { knowledgeSearchFigures } from './knowledge-search.js';
import { peakRssMethod } from './peak-rss.js';

type Row = Record<string, string | number>;

const mb = (x: number) => x.toFixed(1);

function ingestRows(f: IngestFigures): Row[] {
  const size = `${mb(f.fileMb)} MB ${f.kind} PDF`;
  return [
    {
      what: `upload ${size} (POST /knowledge-base, folder store)`,
      ms: f.upload.ms.toFixed(0),
      'peak RSS growth MB': mb(f.upload.peakGrowthMb),
      baseline: 'bare route writing the body to a file',
      'baseline ms': f.bareRoute.ms.toFixed(0),
      'baseline RSS growth MB': mb(f.bareRoute.peakGrowthMb),
      ratio: (f.upload.ms / f.bareRoute.ms).toFixed(2),
    },
    {
      what: `ingest ${size} to ready: ${f.pages} pages, ${f.nodes} nodes (${(f.nodes / f.fileMb).toFixed(0)} a MB) parsed and embedded`,
      ms: f.ingest.ms.toFixed(0),
      'peak RSS growth MB': mb(f.ingest.peakGrowthMb),
      baseline: 'stored file read and parsed alone',
      'baseline ms': f.parseAlone.ms.toFixed(0),
      'baseline RSS growth MB': mb(f.parseAlone.peakGrowthMb),
      ratio: (f.ingest.ms / f.parseAlone.ms).toFixed(2),
    },
  ];
}

/** MB of peak RSS growth per MB of file between the smallest and the largest file (flat: near 0). */
function growthSlopeRows(all: IngestFigures[]): Row[] {
  const sorted = [...all].sort((a, b) => a.fileMb - b.fileMb);
  const small = sorted[0];
  const large = sorted[sorted.length - 1];
  if (!small || !large || large.fileMb - small.fileMb < 1) return [];
  const slope = (pick: (f: IngestFigures) => number) =>
    ((pick(large) - pick(small)) / (large.fileMb - small.fileMb)).toFixed(2);
  const span = `${mb(small.fileMb)} -> ${mb(large.fileMb)} MB`;
  return [
    {
      what: `upload: peak RSS growth per MB of file, ${span} (flat: ~0)`,
      'peak RSS growth MB': slope((f) => f.upload.peakGrowthMb),
      'baseline RSS growth MB': slope((f) => f.bareRoute.peakGrowthMb),
    },
    {
      what: `ingest: peak RSS growth per MB of file, ${span} (flat: ~0)`,
      'peak RSS growth MB': slope((f) => f.ingest.peakGrowthMb),
      'baseline RSS growth MB': slope((f) => f.parseAlone.peakGrowthMb),
    },
  ];
}

export const knowledgeTitle = `Knowledge: upload and ingest of large PDFs (one fresh process per size; ${peakRssMethod}) and a 10,000-node search, each beside its baseline`;

export async function benchKnowledge(
  options: { sizesMb?: number[]; nodes?: number; pdf?: BenchPdfKind } = {},
): Promise<Row[]> {
  const figures: IngestFigures[] = [];
  // One size after another: a child process per size, never two at once (they would share the cores).
  for (const size of options.sizesMb ?? [10, 20, 50])
    figures.push(await ingestFiguresInChild(options.pdf ?? 'images', size));
  return [
    ...figures.flatMap(ingestRows),
    ...growthSlopeRows(figures),
    ...(await knowledgeSearchFigures(options.nodes ?? 10_000)),
  ];
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const arg = (name: string, fallback: string) => {
    const i = process.argv.indexOf(`--${name}`);
    return i >= 0 ? (process.argv[i + 1] ?? fallback) : fallback;
  };
  const pdf = BENCH_PDF_KINDS.find((k) => k === arg('pdf', 'images'));
  if (!pdf) throw new Error(`--pdf is one of ${BENCH_PDF_KINDS.join(', ')}`);
  printTable(
    knowledgeTitle,
    await benchKnowledge({
      sizesMb: arg('sizes-mb', '10,20,50').split(',').map(Number),
      nodes: Number(arg('nodes', '10000')),
      pdf,
    }),
  );
  process.exit(0);
}
