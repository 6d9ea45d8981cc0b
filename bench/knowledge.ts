/**
 * Knowledge figures (issue 25 items 1 and 8), each beside a baseline measured in the same run:
 * - upload: a 20 MB and a 50 MB PDF streamed through POST /knowledge-base into a folder file store
 *   (time and peak RSS growth), beside a bare route that writes the same body to a file;
 * - ingest: the same documents parsed and embedded by the knowledge_ingest run until ready (time and
 *   peak RSS growth), beside parsing the same bytes alone (unpdf page by page);
 * - search: 10,000 knowledge nodes by meaning, words and both (searchKnowledgeNodes), beside a
 *   hand-written exact cosine scan of the same vectors.
 *   npx tsx bench/knowledge.ts [--sizes-mb 20,50] [--nodes 10000]   (wired into npm run bench)
 */
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { sql } from 'drizzle-orm';
import { Hono } from 'hono';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { createApp } from '../functions/app.js';
import { buildServices } from '../functions/build-services.js';
import { API_PREFIX } from '../functions/http/env.js';
import { createApiKey } from '../functions/identity/api-keys.js';
import { createWorkspace, ensureMembership, ensureUser } from '../functions/identity/members.js';
import { parseDocument } from '../functions/knowledge/parsers/index.js';
import { searchKnowledgeNodes } from '../functions/knowledge/search.js';
import { allPipelines } from '../functions/modules.js';
import { loadConfig } from '../platform/config.js';
import { migrateDatabase } from '../platform/db/migrate.js';
import { openPglite } from '../platform/db/pglite.js';
import { queryRows } from '../platform/db/port.js';
import { FolderFileStore } from '../platform/files/folder.js';
import { newId } from '../platform/ids.js';
import { createLogger } from '../platform/log.js';
import { LocalHashEmbedder } from '../platform/model/local.js';
import { loadRun } from '../queues/run-store.js';
import type { LocalTransport } from '../queues/transport/local.js';
import { documentGroups, knowledgeNodes, knowledgeNodeVectors, storedFiles } from '../schema/knowledge.js';
import { printTable } from './report.js';

const arg = (name: string, fallback: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? (process.argv[i + 1] ?? fallback) : fallback;
};
const WORDS =
  'renewal pricing onboarding security migration support contract seats discount integration latency roadmap'.split(
    ' ',
  );
const MB = 1024 * 1024;
const CHUNK = 64 * 1024;
const BOUNDARY = 'bench-boundary-7f3a9c';

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

/** Peak RSS above the level at start, sampled every 10 ms while `work` runs. */
async function measured<T>(work: () => Promise<T>): Promise<{ value: T; ms: number; peakGrowthMb: number }> {
  (globalThis as { gc?: () => void }).gc?.();
  const before = process.memoryUsage().rss;
  let peak = before;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 10);
  const started = performance.now();
  try {
    const value = await work();
    peak = Math.max(peak, process.memoryUsage().rss);
    return { value, ms: performance.now() - started, peakGrowthMb: (peak - before) / MB };
  } finally {
    clearInterval(timer);
  }
}

/** A multipart/form-data body carrying `bytes` in the field `file`, produced 64 KiB at a time (as a client sends it). */
function multipartBody(bytes: Uint8Array, filename: string): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  const head = encoder.encode(
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: application/pdf\r\n\r\n`,
  );
  const tail = encoder.encode(`\r\n--${BOUNDARY}--\r\n`);
  let at = -1;
  return new ReadableStream({
    pull(controller) {
      if (at === -1) {
        controller.enqueue(head);
        at = 0;
      } else if (at < bytes.length) {
        controller.enqueue(bytes.slice(at, at + CHUNK));
        at += CHUNK;
      } else {
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

/** Upload and ingest through the real app (folder file store, in-memory PGlite, local queue). */
async function uploadAndIngest(sizesMb: readonly number[]): Promise<Record<string, string | number>[]> {
  const dir = mkdtempSync(join(tmpdir(), 'cip-bench-knowledge-'));
  const handle = await openPglite({});
  await migrateDatabase(handle);
  const config = loadConfig({ APP_ENV: 'test', PUBLIC_URL: 'http://bench.local', LOG_LEVEL: 'silent' });
  const services = buildServices({
    config,
    db: handle.db,
    oauthSecret: 'bench-oauth-secret-0123456789abcdefghijklmnop',
    localQueueKeys: { current: 'bench-current-key-0123456789', next: 'bench-next-key-0123456789' },
    secretsEncryptionKey: 'bench-secrets-key-0123456789abcdefghijkl',
    log: createLogger('silent'),
    pipelines: allPipelines,
    files: new FolderFileStore(join(dir, 'files')),
  });
  const { app } = createApp({ services });
  const queue = services.queue as LocalTransport;
  queue.attach((req) => Promise.resolve(app.fetch(req)));
  const { workspaceId } = await createWorkspace(handle.db, { name: 'bench knowledge' });
  const userId = await ensureUser(handle.db, 'bench-admin@bench.example');
  await ensureMembership(handle.db, workspaceId, userId, 'admin');
  const { key } = await createApiKey(handle.db, {
    workspaceId,
    userId,
    name: 'bench',
    bundle: 'full_admin',
    role: 'admin',
    expiresAt: null,
  });
  // The baseline: a bare route writing the request body to a file, nothing else.
  const bare = new Hono().post('/drain', async (c) => {
    const out = createWriteStream(join(dir, 'bare.bin'));
    await c.req.raw.body?.pipeTo(Writable.toWeb(out) as WritableStream<Uint8Array>);
    return c.json({ ok: true });
  });
  const rows: Record<string, string | number>[] = [];
  try {
    for (const mb of sizesMb) {
      const bytes = await pdfOfSize(mb);
      const size = `${(bytes.length / MB).toFixed(1)} MB`;
      const base = await measured(
        async () => (await post(bare, 'http://bench.local/drain', multipartBody(bytes, 'b.pdf'), {})).status,
      );
      const upload = await measured(async () => {
        const res = await post(
          app,
          `${config.publicUrl}${API_PREFIX}/knowledge-base`,
          multipartBody(bytes, 'bench.pdf'),
          { 'x-api-key': key },
        );
        if (res.status !== 202) throw new Error(`upload answered ${res.status}: ${await res.text()}`);
        return (await res.json()) as { data: { run_id: string; id: string } };
      });
      rows.push({
        what: `upload ${size} PDF (POST /knowledge-base, folder store)`,
        ms: upload.ms.toFixed(0),
        'peak RSS growth MB': upload.peakGrowthMb.toFixed(1),
        'baseline ms': base.ms.toFixed(0),
        'baseline RSS growth MB': base.peakGrowthMb.toFixed(1),
        ratio: (upload.ms / base.ms).toFixed(2),
      });
      const parseOnly = await measured(() => parseDocument('pdf', bytes));
      const ingest = await measured(async () => {
        for (;;) {
          await queue.drain();
          const run = await loadRun(services.db, upload.value.data.run_id);
          if (run?.status === 'complete') return run;
          if (run && ['failed', 'canceled'].includes(run.status)) throw new Error(`ingest ended ${run.status}`);
          await new Promise((r) => setTimeout(r, 20));
        }
      });
      const [nodes] = await queryRows<{ n: number }>(
        handle.db,
        sql`select count(*)::int as n from knowledge_nodes where document_group_id = ${upload.value.data.id}`,
      );
      rows.push({
        what: `ingest ${size} PDF to ready (${nodes?.n ?? 0} nodes parsed and embedded)`,
        ms: ingest.ms.toFixed(0),
        'peak RSS growth MB': ingest.peakGrowthMb.toFixed(1),
        'baseline ms': parseOnly.ms.toFixed(0),
        'baseline RSS growth MB': parseOnly.peakGrowthMb.toFixed(1),
        ratio: (ingest.ms / parseOnly.ms).toFixed(2),
      });
    }
  } finally {
    await handle.close();
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}

/** 10,000 nodes searched by searchKnowledgeNodes, beside a hand-written exact cosine scan of the same vectors. */
async function searchFigures(nodeCount: number): Promise<Record<string, string | number>[]> {
  const handle = await openPglite({});
  await migrateDatabase(handle);
  const { workspaceId } = await createWorkspace(handle.db, { name: 'bench' });
  const embedder = new LocalHashEmbedder();
  const NODES = nodeCount;
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
  const median = async (run: (k: number) => Promise<unknown>): Promise<number> => {
    const times: number[] = [];
    for (let k = 0; k < 15; k++) {
      const started = performance.now();
      await run(k);
      times.push(performance.now() - started);
    }
    return times.sort((a, b) => a - b)[7] ?? 0;
  };
  const query = (k: number) => `questions about ${WORDS[k % WORDS.length]} pricing`;
  const baseline = await median(async (k) => {
    const [vector] = await embedder.embed([query(k)]);
    const literal = `[${(vector ?? []).join(',')}]`;
    await queryRows(
      handle.db,
      sql`select node_key from knowledge_node_vectors where workspace_id = ${workspaceId} and embedder = ${embedder.id}
          order by embedding <=> ${literal}::vector limit 10`,
    );
  });
  const rows: Record<string, string | number>[] = [];
  for (const mode of ['semantic', 'keyword', 'hybrid'] as const) {
    const ms = await median((k) =>
      searchKnowledgeNodes({ db: handle.db, embedder }, { workspaceId, query: query(k), limit: 10, mode }),
    );
    rows.push({
      what: `search ${NODES} nodes, ${mode} (median of 15)`,
      ms: ms.toFixed(1),
      'baseline ms': baseline.toFixed(1),
      ratio: (ms / baseline).toFixed(2),
    });
  }
  await handle.close();
  return rows;
}

export const knowledgeTitle =
  'Knowledge: upload and ingest of large PDFs (peak RSS growth must stay flat as the file grows) and a 10,000-node search, each beside its baseline';

export async function benchKnowledge(options: { sizesMb?: number[]; nodes?: number } = {}) {
  return [...(await uploadAndIngest(options.sizesMb ?? [20, 50])), ...(await searchFigures(options.nodes ?? 10_000))];
}

if (import.meta.url === `file://${process.argv[1]}`) {
  printTable(
    knowledgeTitle,
    await benchKnowledge({
      sizesMb: arg('sizes-mb', '20,50').split(',').map(Number),
      nodes: Number(arg('nodes', '10000')),
    }),
  );
  process.exit(0);
}
