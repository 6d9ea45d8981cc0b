/**
 * Upload and ingest of one generated PDF through the real app (folder file store, in-memory PGlite,
 * local queue), each step beside its baseline, in a fresh process per size so that no memory of an
 * earlier size or benchmark is reused (see bench/peak-rss.ts for how the peak is measured):
 *
 * - upload: POST /knowledge-base with the file streamed 64 KiB at a time as a client sends it,
 *   beside a bare Hono route writing the same body to a file;
 * - ingest: the knowledge_ingest run from its first delivery to `complete` (the stored file read,
 *   parsed, its nodes written and embedded), beside the stored file read and parsed alone
 *   (parseDocument, as the run's parse stage calls it, without the database or the embedder).
 *
 * The queue's deliveries wait behind a gate until the ingest is measured, so the upload and the
 * parse-alone baseline do not overlap the run. One small document goes through every step first
 * (not reported) to warm up pdf.js, the database and the JIT.
 *
 * Run by bench/knowledge.ts (ingestFiguresInChild), which generates the PDF and starts this file as a child.
 */
import { spawn } from 'node:child_process';
import { createReadStream, createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { type FileHandle, open, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { and, eq, sql } from 'drizzle-orm';
import { Hono } from 'hono';
import { createApp } from '../functions/app.js';
import { buildServices } from '../functions/build-services.js';
import { API_PREFIX } from '../functions/http/env.js';
import { benchAdmin } from './bench-admin.js';
import { parseDocument } from '../functions/knowledge/parsers/index.js';
import { allPipelines } from '../functions/modules.js';
import { loadConfig } from '../platform/config.js';
import { migrateDatabase } from '../platform/db/migrate.js';
import { openPglite } from '../platform/db/pglite.js';
import { queryRows } from '../platform/db/port.js';
import { FolderFileStore } from '../platform/files/folder.js';
import { createLogger } from '../platform/log.js';
import { loadRun } from '../queues/run-store.js';
import type { LocalTransport } from '../queues/transport/local.js';
import { documentGroups, storedFiles } from '../schema/knowledge.js';
import { type BenchPdfKind, benchPdf } from './knowledge-pdf.js';
import { measurePeakRss, peakRssMethod } from './peak-rss.js';

const MB = 1024 * 1024;
const CHUNK = 64 * 1024;
const BOUNDARY = 'bench-boundary-7f3a9c';
const WARM_UP_MB = 1;
/** The child's line carrying its figures (the rest of its output is passed through). */
const FIGURES_MARKER = 'KNOWLEDGE_INGEST_FIGURES ';

export interface IngestFigures {
  kind: BenchPdfKind;
  fileMb: number;
  pages: number;
  nodes: number;
  upload: { ms: number; peakGrowthMb: number };
  bareRoute: { ms: number; peakGrowthMb: number };
  ingest: { ms: number; peakGrowthMb: number };
  parseAlone: { ms: number; peakGrowthMb: number };
  peakRssMethod: string;
}

/** Read buffers the client cycles through: a chunk is consumed long before its buffer comes round again. */
const CLIENT_BUFFERS = 32;

/**
 * A multipart/form-data body carrying the file at `path` in the field `file`, read from disk 64 KiB at
 * a time as a client sends it. The client is not what is measured: it never holds the whole file and
 * reads into a ring of CLIENT_BUFFERS buffers allocated once, so it adds no garbage of the file's size
 * to the server's figures (a real client is another process). The stored file's hash is checked
 * against the file's, so a buffer reused too early would fail the bench, not skew it.
 */
function multipartBody(path: string, filename: string): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  const head = encoder.encode(
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: application/pdf\r\n\r\n`,
  );
  const tail = encoder.encode(`\r\n--${BOUNDARY}--\r\n`);
  const ring = Array.from({ length: CLIENT_BUFFERS }, () => new Uint8Array(CHUNK));
  let file: FileHandle | null = null;
  let at = -1;
  let turn = 0;
  return new ReadableStream({
    async pull(controller) {
      if (!file) {
        file = await open(path, 'r');
        controller.enqueue(head);
        at = 0;
        return;
      }
      const buffer = ring[turn++ % CLIENT_BUFFERS] ?? new Uint8Array(CHUNK);
      const { bytesRead } = await file.read(buffer, 0, CHUNK, at);
      if (bytesRead > 0) {
        controller.enqueue(buffer.subarray(0, bytesRead));
        at += bytesRead;
      } else {
        await file.close();
        controller.enqueue(tail);
        controller.close();
      }
    },
  });
}

const post = (
  app: { request: (url: string, init: RequestInit) => Response | Promise<Response> },
  url: string,
  body: ReadableStream<Uint8Array>,
  headers: Record<string, string>,
) =>
  Promise.resolve(
    app.request(url, {
      method: 'POST',
      headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}`, ...headers },
      body,
      duplex: 'half',
    } as RequestInit),
  );

/** Holds the queue's deliveries until opened (so a run starts when the bench says so). */
class Gate {
  #open = false;
  #waiting: (() => void)[] = [];
  async pass(): Promise<void> {
    if (!this.#open) await new Promise<void>((resolve) => this.#waiting.push(resolve));
  }
  open(): void {
    this.#open = true;
    for (const resolve of this.#waiting.splice(0)) resolve();
  }
  close(): void {
    this.#open = false;
  }
}

/** The PDF a child measures, generated by its parent (the child never generates: see ingestFiguresInChild). */
interface ChildInput {
  kind: BenchPdfKind;
  pages: number;
  path: string;
  /** A small PDF put through every step first, not reported. */
  warmUpPath: string;
}

/** Measure one file in this process: bare route, upload, parse alone, ingest (in that order, never overlapping). */
async function measureOneFile(input: ChildInput): Promise<IngestFigures> {
  const dir = mkdtempSync(join(tmpdir(), 'cip-bench-knowledge-'));
  const handle = await openPglite({});
  await migrateDatabase(handle);
  const config = loadConfig({ APP_ENV: 'test', PUBLIC_URL: 'http://bench.local', LOG_LEVEL: 'silent' });
  const files = new FolderFileStore(join(dir, 'files'));
  const services = buildServices({
    config,
    db: handle.db,
    oauthSecret: 'bench-oauth-secret-0123456789abcdefghijklmnop',
    localQueueKeys: { current: 'bench-current-key-0123456789', next: 'bench-next-key-0123456789' },
    secretsEncryptionKey: 'bench-secrets-key-0123456789abcdefghijkl',
    log: createLogger('silent'),
    pipelines: allPipelines,
    files,
  });
  const { app } = createApp({ services });
  const gate = new Gate();
  const queue = services.queue as LocalTransport;
  queue.attach(async (req) => {
    await gate.pass();
    return app.fetch(req);
  });
  const { workspaceId, key } = await benchAdmin(handle.db, 'bench knowledge');
  // The baseline: a bare route writing the request body to a file, nothing else.
  const bare = new Hono().post('/drain', async (c) => {
    const out = createWriteStream(join(dir, 'bare.bin'));
    await c.req.raw.body?.pipeTo(Writable.toWeb(out) as WritableStream<Uint8Array>);
    return c.json({ ok: true });
  });

  const steps = async (path: string) => {
    const hash = createHash('sha256');
    for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
    const fileSha256 = hash.digest('hex');
    const bareRoute = await measurePeakRss(
      async () => (await post(bare, 'http://bench.local/drain', multipartBody(path, 'b.pdf'), {})).status,
    );
    const upload = await measurePeakRss(async () => {
      const res = await post(app, `${config.publicUrl}${API_PREFIX}/knowledge-base`, multipartBody(path, 'bench.pdf'), {
        'x-api-key': key,
      });
      if (res.status !== 202) throw new Error(`upload answered ${res.status}: ${await res.text()}`);
      return (await res.json()) as { data: { run_id: string; id: string } };
    });
    const document = upload.value.data;
    const [stored] = await handle.db
      .select({ key: storedFiles.storageKey, sha256: storedFiles.sha256 })
      .from(documentGroups)
      .innerJoin(storedFiles, eq(storedFiles.id, documentGroups.fileId))
      .where(and(eq(documentGroups.workspaceId, workspaceId), eq(documentGroups.id, document.id)));
    if (!stored) throw new Error('the uploaded document has no stored file');
    if (stored.sha256 !== fileSha256) throw new Error('the stored file differs from the file sent');
    const parseAlone = await measurePeakRss(async () => {
      const read = await files.get(stored.key);
      if (!read) throw new Error('the stored file is missing');
      return (await parseDocument('pdf', read, undefined, { handOver: true })).length;
    });
    const ingest = await measurePeakRss(async () => {
      gate.open();
      try {
        for (;;) {
          await queue.drain();
          const run = await loadRun(services.db, document.run_id);
          if (run?.status === 'complete') return run;
          if (run && ['failed', 'canceled'].includes(run.status))
            throw new Error(`ingest ended ${run.status}: ${run.error?.message ?? ''}`);
          await new Promise((r) => setTimeout(r, 20));
        }
      } finally {
        gate.close();
      }
    });
    const [nodes] = await queryRows<{ n: number }>(
      handle.db,
      sql`select count(*)::int as n from knowledge_nodes where document_group_id = ${document.id}`,
    );
    if ((nodes?.n ?? 0) !== parseAlone.value)
      throw new Error(`the run made ${nodes?.n} nodes, parsing alone ${parseAlone.value}`);
    const figures = (m: { ms: number; peakGrowthMb: number }) => ({ ms: m.ms, peakGrowthMb: m.peakGrowthMb });
    return {
      nodes: nodes?.n ?? 0,
      upload: figures(upload),
      bareRoute: figures(bareRoute),
      ingest: figures(ingest),
      parseAlone: figures(parseAlone),
    };
  };

  try {
    await steps(input.warmUpPath);
    const measured = await steps(input.path);
    const fileMb = (await stat(input.path)).size / MB;
    return { kind: input.kind, fileMb, pages: input.pages, ...measured, peakRssMethod };
  } finally {
    await queue.close();
    await handle.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * One size measured in a fresh child process (its output passed through). This process generates the
 * PDF into a temporary file first, so the child's memory holds none of the generator's garbage and its
 * client streams the file from disk. In the child glibc's mmap threshold is fixed at 1 MiB, so buffers
 * of the size of the file are unmapped when freed and one step's freed memory does not hide the next
 * step's growth.
 */
export async function ingestFiguresInChild(kind: BenchPdfKind, sizeMb: number): Promise<IngestFigures> {
  const dir = mkdtempSync(join(tmpdir(), 'cip-bench-knowledge-pdf-'));
  try {
    const pdf = await benchPdf(kind, sizeMb);
    const input: ChildInput = {
      kind,
      pages: pdf.pages,
      path: join(dir, 'bench.pdf'),
      warmUpPath: join(dir, 'warm-up.pdf'),
    };
    await writeFile(input.path, pdf.bytes);
    await writeFile(input.warmUpPath, (await benchPdf('images', WARM_UP_MB)).bytes);
    return await runChild(input);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function runChild(input: ChildInput): Promise<IngestFigures> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [...process.execArgv, fileURLToPath(import.meta.url), JSON.stringify(input)],
      {
        env: { ...process.env, MALLOC_MMAP_THRESHOLD_: String(MB) },
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    let output = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (text: string) => {
      output += text;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      const line = output.split('\n').find((l) => l.startsWith(FIGURES_MARKER));
      if (code !== 0 || !line) {
        reject(new Error(`the ingest bench of ${input.path} exited ${code}:\n${output}`));
        return;
      }
      process.stdout.write(output.replace(`${line}\n`, ''));
      resolve(JSON.parse(line.slice(FIGURES_MARKER.length)) as IngestFigures);
    });
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const figures = await measureOneFile(JSON.parse(process.argv[2] ?? '') as ChildInput);
  process.stdout.write(`${FIGURES_MARKER}${JSON.stringify(figures)}\n`, () => process.exit(0));
}
