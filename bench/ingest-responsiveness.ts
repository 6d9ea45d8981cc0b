/**
 * Other requests while a document ingests, in the embedded default's one process (HTTP server, local
 * queue and ingest sharing one event loop): the event loop's delay (node:perf_hooks
 * monitorEventLoopDelay, p99 and max) and the latency of a cheap authenticated GET sent over HTTP
 * one after another, each beside the same figures measured with nothing ingesting (the baseline, in
 * the same run). Documents: a 50 MB text file (about 29,000 nodes), a realistic DOCX (headings,
 * paragraphs, a table) and a realistic PDF (pages of pictures and text). Each is uploaded first (its
 * upload watched on its own row), its ingest held back until then; the ingest is watched until it
 * completes or for WINDOW_MS at most (the 50 MB text's embedding outlasts it: the window covers its
 * parse, node writes and first embedding batches), then canceled. Target: p99 event-loop delay
 * under 100 ms.
 *
 * As `npm start` runs: the database in a data folder and the files in a folder (an in-memory
 * database copies its whole growing table file each time the file outgrows its buffer, a stall
 * `npm start` never has), and the upload sent as a client in another process sends it, a stream
 * of 64 KiB pieces (a Blob of 50 MB streamed by this process's own fetch is copied in one piece,
 * the bench's own stall, not the server's).
 *
 *   npx tsx bench/ingest-responsiveness.ts   (wired into npm run bench)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { serve } from '@hono/node-server';
import { Document, HeadingLevel, Packer, Paragraph, Table, TableCell, TableRow, TextRun } from 'docx';
import { createApp } from '../functions/app.js';
import { buildServices } from '../functions/build-services.js';
import { API_PREFIX } from '../functions/http/env.js';
import { benchAdmin } from './bench-admin.js';
import { allPipelines } from '../functions/modules.js';
import { loadConfig } from '../platform/config.js';
import { migrateDatabase } from '../platform/db/migrate.js';
import { openPglite } from '../platform/db/pglite.js';
import { FolderFileStore } from '../platform/files/folder.js';
import { createLogger } from '../platform/log.js';
import { loadRun } from '../queues/run-store.js';
import type { LocalTransport } from '../queues/transport/local.js';
import { docxThreadPool } from '../functions/knowledge/parsers/docx-thread.js';
import { benchPdf } from './knowledge-pdf.js';
import { printTable } from './report.js';

const MB = 1024 * 1024;
/** The longest an ingest is watched (`BENCH_INGEST_WINDOW_MS` to watch a 50 MB text past its parse). */
const WINDOW_MS = Number(process.env.BENCH_INGEST_WINDOW_MS ?? 15_000);
/** How long the baseline (nothing ingesting) is watched. */
const BASELINE_MS = 3_000;
const TARGET_P99_MS = 100;

const WORDS =
  'renewal pricing onboarding security migration support contract seats discount integration latency roadmap customer quarter review answer team plan'.split(
    ' ',
  );

/** Seeded text: the same every run. */
function seededWords(count: number, seed: number): string {
  let x = seed >>> 0 || 1;
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out.push(WORDS[(x >>> 0) % WORDS.length] as string);
  }
  return out.join(' ');
}

/** Just under `mb` MB of plain text in paragraphs of about 1,800 characters (one node each). */
function largeText(mb: number): Uint8Array {
  const paragraphs: string[] = [];
  let size = 0;
  for (let i = 0; size + 4096 < mb * MB; i++) {
    const p = `${seededWords(220, i + 1)}.`;
    paragraphs.push(p);
    size += p.length + 2;
  }
  return new TextEncoder().encode(paragraphs.join('\n\n'));
}

/** A realistic Word document: 40 sections of 25 paragraphs each, and a 200-row table. */
async function realisticDocx(): Promise<Uint8Array> {
  const children: (Paragraph | Table)[] = [];
  for (let s = 0; s < 40; s++) {
    children.push(
      new Paragraph({ text: `Section ${s + 1}: ${seededWords(4, s + 7)}`, heading: HeadingLevel.HEADING_1 }),
    );
    for (let p = 0; p < 25; p++)
      children.push(new Paragraph({ children: [new TextRun(seededWords(60, s * 100 + p))] }));
  }
  const cell = (text: string) => new TableCell({ children: [new Paragraph(text)] });
  children.push(
    new Table({
      rows: [
        new TableRow({ children: [cell('Account'), cell('Plan'), cell('Seats')] }),
        ...Array.from(
          { length: 200 },
          (_, i) =>
            new TableRow({ children: [cell(`Account ${i}`), cell(seededWords(1, i + 3)), cell(String(i * 7))] }),
        ),
      ],
    }),
  );
  return new Uint8Array(await Packer.toBuffer(new Document({ sections: [{ children }] })));
}

const BOUNDARY = 'bench-ingest-boundary-4f1c';
/** Bytes per piece of a streamed upload body. */
const UPLOAD_PIECE = 64 * 1024;

/** A multipart/form-data body of one file, streamed in UPLOAD_PIECE pieces (views, not copies). */
function multipartUpload(filename: string, bytes: Uint8Array) {
  const head = new TextEncoder().encode(
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: application/octet-stream\r\n\r\n`,
  );
  const tail = new TextEncoder().encode(`\r\n--${BOUNDARY}--\r\n`);
  return {
    type: `multipart/form-data; boundary=${BOUNDARY}`,
    length: head.length + bytes.length + tail.length,
    stream: () => {
      let at = 0;
      let sentHead = false;
      return new ReadableStream<Uint8Array>({
        pull(controller) {
          if (!sentHead) {
            sentHead = true;
            controller.enqueue(head);
          } else if (at < bytes.length) {
            controller.enqueue(bytes.subarray(at, at + UPLOAD_PIECE));
            at += UPLOAD_PIECE;
          } else {
            controller.enqueue(tail);
            controller.close();
          }
        },
      });
    },
  };
}

interface Figures {
  ms: number;
  loopP99: number;
  loopMax: number;
  getP50: number;
  getP99: number;
  getMax: number;
  gets: number;
  failed: number;
  outcome: string;
}

const percentile = (sorted: readonly number[], p: number) =>
  sorted.length === 0 ? 0 : (sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0);

/**
 * Watch the event loop and send GETs one after another until `until` resolves (or WINDOW_MS passes),
 * then report both.
 */
async function watch(get: () => Promise<Response>, until: (signal: AbortSignal) => Promise<string>): Promise<Figures> {
  const loop = monitorEventLoopDelay({ resolution: 5 });
  const latencies: number[] = [];
  let failed = 0;
  const stop = new AbortController();
  const started = performance.now();
  loop.enable();
  const getting = (async () => {
    while (!stop.signal.aborted) {
      const t = performance.now();
      try {
        const res = await get();
        await res.arrayBuffer();
        if (res.ok) latencies.push(performance.now() - t);
        else failed++;
      } catch {
        failed++;
      }
    }
  })();
  const window = AbortSignal.timeout(WINDOW_MS);
  const outcome = await until(window);
  stop.abort();
  await getting;
  loop.disable();
  const ms = performance.now() - started;
  latencies.sort((a, b) => a - b);
  return {
    ms,
    loopP99: loop.percentile(99) / 1e6,
    loopMax: loop.max / 1e6,
    getP50: percentile(latencies, 50),
    getP99: percentile(latencies, 99),
    getMax: latencies.at(-1) ?? 0,
    gets: latencies.length,
    failed,
    outcome,
  };
}

export const ingestResponsivenessTitle = `Ingest responsiveness: event-loop delay and a concurrent authenticated GET (over HTTP) while a document ingests in the same process, beside the same with nothing ingesting (target: p99 event-loop delay under ${TARGET_P99_MS} ms)`;

export async function benchIngestResponsiveness(): Promise<Record<string, string | number>[]> {
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-ingest-'));
  const handle = await openPglite({ dataDir: join(dataDir, 'db') });
  await migrateDatabase(handle);
  const docxPool = docxThreadPool();
  // The probe GETs back to back: on a quiet machine that is past the per-address limit, which this bench does not measure.
  const config = loadConfig({
    APP_ENV: 'test',
    PUBLIC_URL: 'http://bench.local',
    LOG_LEVEL: 'silent',
    RATE_LIMIT_GLOBAL_PER_MIN: '1000000',
  });
  const services = buildServices({
    config,
    db: handle.db,
    oauthSecret: 'bench-oauth-secret-0123456789abcdefghijklmnop',
    localQueueKeys: { current: 'bench-current-key-0123456789', next: 'bench-next-key-0123456789' },
    secretsEncryptionKey: 'bench-secrets-key-0123456789abcdefghijkl',
    log: createLogger('silent'),
    pipelines: allPipelines,
    files: new FolderFileStore(join(dataDir, 'files')),
    // As npm start: DOCX conversion on a worker thread.
    docxToHtml: docxPool.toHtml,
  });
  const { app } = createApp({ services });
  const queue = services.queue as LocalTransport;
  // Deliveries wait here until the upload is measured, so an ingest starts when the bench says so.
  let openGate: () => void = () => undefined;
  let gate = Promise.resolve();
  const closeGate = () => {
    gate = new Promise<void>((resolve) => {
      openGate = resolve;
    });
  };
  queue.attach(async (req) => {
    await gate;
    return app.fetch(req);
  });
  const server = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 });
  await new Promise<void>((resolve) => server.once('listening', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const base = `http://127.0.0.1:${port}${API_PREFIX}`;
  const { workspaceId, key } = await benchAdmin(handle.db, 'bench ingest responsiveness');
  const get = () => fetch(`${base}/knowledge-base?limit=1`, { headers: { 'x-api-key': key } });

  const only = process.env.BENCH_INGEST_ONLY;
  const documents = [
    { what: '50 MB text', name: 'large.txt', bytes: largeText(50) },
    { what: 'realistic DOCX', name: 'handbook.docx', bytes: await realisticDocx() },
    // The baseline of the thread: the same DOCX converted on the event loop, as before (and as a Worker does).
    {
      what: 'realistic DOCX, converted in-process',
      name: 'handbook.docx',
      bytes: await realisticDocx(),
      inProcess: true,
    },
    { what: 'realistic PDF, pictures and text', name: 'deck.pdf', bytes: (await benchPdf('images', 10)).bytes },
  ].filter((d) => !only || d.name === only);

  const rows: Record<string, string | number>[] = [];
  try {
    await watch(get, async () => 'warm-up'); // JIT and connection warm-up, not reported
    const baseline = await watch(get, async () => {
      await new Promise((r) => setTimeout(r, BASELINE_MS));
      return 'idle';
    });
    const row = (what: string, f: Figures) => ({
      what,
      's watched': (f.ms / 1000).toFixed(1),
      outcome: f.outcome,
      'loop p99 ms': f.loopP99.toFixed(0),
      'loop max ms': f.loopMax.toFixed(0),
      'GET p50 ms': f.getP50.toFixed(1),
      'GET p99 ms': f.getP99.toFixed(1),
      'GET max ms': f.getMax.toFixed(0),
      GETs: f.gets,
      'GETs failed': f.failed,
      'loop p99 / baseline': (f.loopP99 / Math.max(baseline.loopP99, 0.001)).toFixed(1),
      'GET p99 / baseline': (f.getP99 / Math.max(baseline.getP99, 0.001)).toFixed(1),
    });
    rows.push(row('baseline: nothing ingesting', baseline));
    for (const doc of documents) {
      services.docxToHtml = 'inProcess' in doc ? undefined : docxPool.toHtml;
      const upload = multipartUpload(doc.name, doc.bytes);
      const size = `${doc.what} (${(doc.bytes.length / MB).toFixed(1)} MB)`;
      let runId = '';
      closeGate();
      const uploading = await watch(get, async () => {
        const res = await fetch(`${base}/knowledge-base`, {
          method: 'POST',
          headers: { 'x-api-key': key, 'content-type': upload.type, 'content-length': String(upload.length) },
          body: upload.stream(),
          duplex: 'half',
        } as RequestInit);
        if (res.status !== 202) throw new Error(`upload of ${doc.name} answered ${res.status}: ${await res.text()}`);
        runId = ((await res.json()) as { data: { run_id: string } }).data.run_id;
        return 'stored';
      });
      rows.push(row(`uploading ${size}`, uploading));
      const figures = await watch(get, async (window) => {
        openGate();
        const data = { run_id: runId };
        while (!window.aborted) {
          const run = await loadRun(handle.db, data.run_id);
          if (run && ['complete', 'failed', 'canceled'].includes(run.status))
            return run.status === 'complete' ? `ready, ${run.state.nodes} nodes` : `${run.status}: ${run.error?.code}`;
          await new Promise((r) => setTimeout(r, 50));
        }
        const run = await loadRun(handle.db, data.run_id);
        await services.engine.cancel(workspaceId, data.run_id);
        return `stopped at ${run?.stage}: ${run?.state.embedded ?? 0} of ${run?.state.nodes ?? '?'} nodes embedded`;
      });
      rows.push(row(`ingesting ${size}`, figures));
      await queue.drain();
    }
  } finally {
    server.close();
    await queue.close();
    await docxPool.close();
    await handle.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  printTable(ingestResponsivenessTitle, await benchIngestResponsiveness());
  process.exit(0);
}
