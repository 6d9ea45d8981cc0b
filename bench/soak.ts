/**
 * Soak: the embedded default as `npm start` runs it (functions/node.ts in a child process on a fresh
 * DATA_DIR: the demo workspace, the local queue, the scheduled tick, the local model), under mixed
 * traffic over kept-alive connections for a few minutes, on the loopback only:
 *
 * - reads: four clients, GET setup/status, search/fields, context-entries, knowledge-base, back to back;
 * - idle reads: one client on one connection, GET setup/status then 5.5-7 s idle (longer than Node's
 *   default keep-alive of 5 s: a server that closes idle connections first resets this one's next request);
 * - writes: two clients, POST then DELETE a context entry;
 * - chats: one client, POST /chat, then the run read with `wait_ms` until it ends;
 * - one knowledge ingest: a large text uploaded to POST /knowledge-base, then its document read until ready.
 *
 * It reports the transport errors (a request that got no HTTP answer: reset, hang-up, refused,
 * timeout; the target is 0), the statuses and latency p50/p95/p99 per kind, how many requests
 * went on a reused connection, and how long the server took to exit on SIGTERM after the load.
 * Bounded: the duration, MAX_REQUESTS in all, a timeout per request; it stops by itself.
 *
 *   npx tsx bench/soak.ts [--short] [--seconds N]      (default 120 s; --short 20 s)
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { API_PREFIX } from '../functions/http/env.js';
import { TERMINAL_STATUSES } from '../schema/runs.js';
import { latencyStats, ms } from './latency.js';
import { printTable } from './report.js';

const HOST = '127.0.0.1';
/** Requests in all, whatever the duration: the bench never runs away. */
const MAX_REQUESTS = 200_000;
/** A request without an answer after this is a transport error (a chat's long-poll waits at most 10 s). */
const REQUEST_TIMEOUT_MS = 60_000;
const STARTUP_TIMEOUT_MS = 300_000;
const BOUNDARY = 'soak-boundary-5d1e0b';

type Kind = 'read' | 'idle read' | 'write' | 'chat start' | 'chat read' | 'ingest upload' | 'ingest read';

interface Outcome {
  kind: Kind;
  status: number | null;
  ms: number;
  reused: boolean;
  error?: string;
}

interface Answer {
  status: number;
  body: unknown;
}

const sleep = (msToWait: number) => new Promise((r) => setTimeout(r, msToWait));
const between = (low: number, high: number) => low + Math.random() * (high - low);

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, HOST, resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  return typeof address === 'object' && address ? address.port : 0;
}

/** Start the embedded default and read its admin key from the first-start banner. */
async function startServer(port: number, dataDir: string): Promise<{ child: ChildProcess; key: string }> {
  const entry = fileURLToPath(new URL('../functions/node.ts', import.meta.url));
  const child = spawn(process.execPath, ['--import', 'tsx', entry], {
    env: {
      ...process.env,
      DATA_DIR: dataDir,
      HOST,
      PORT: String(port),
      LOG_LEVEL: 'warn',
      // The soak measures transport and latency under load, not the per-minute limiter.
      RATE_LIMIT_GLOBAL_PER_MIN: '100000000',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const key = await new Promise<string>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error('the server did not start in time')), STARTUP_TIMEOUT_MS);
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      const match = /listening on[\s\S]*?\n\s+(cip_[A-Za-z0-9]+)\s*\n/.exec(out);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the server exited (${code}) before it listened`));
    });
  });
  child.stdout?.resume();
  return { child, key };
}

class Client {
  readonly outcomes: Outcome[] = [];
  constructor(
    private readonly port: number,
    private readonly key: string,
    private readonly budget: { left: number },
  ) {}

  /** One request on `agent`'s kept-alive connections; a failure without an HTTP answer is recorded, not thrown. */
  call(
    kind: Kind,
    agent: Agent,
    method: string,
    path: string,
    body?: { type: string; bytes: Buffer },
  ): Promise<Answer | null> {
    if (this.budget.left-- <= 0) return Promise.resolve(null);
    const started = performance.now();
    return new Promise((resolve) => {
      let reused = false;
      const done = (status: number | null, parsed: unknown, error?: string) => {
        this.outcomes.push({
          kind,
          status,
          ms: performance.now() - started,
          reused,
          ...(error ? { error } : {}),
        });
        resolve(status === null ? null : { status, body: parsed });
      };
      const req = request(
        {
          host: HOST,
          port: this.port,
          method,
          path: `${API_PREFIX}${path}`,
          agent,
          timeout: REQUEST_TIMEOUT_MS,
          headers: {
            'x-api-key': this.key,
            ...(body ? { 'content-type': body.type, 'content-length': String(body.bytes.length) } : {}),
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            let parsed: unknown = null;
            try {
              parsed = text ? JSON.parse(text) : null;
            } catch {
              parsed = text;
            }
            done(res.statusCode ?? 0, parsed);
          });
          res.on('error', (error: NodeJS.ErrnoException) => done(null, null, error.code ?? error.message));
        },
      );
      req.on('socket', () => {
        reused = req.reusedSocket;
      });
      req.on('timeout', () => req.destroy(Object.assign(new Error('timeout'), { code: 'TIMEOUT' })));
      req.on('error', (error: NodeJS.ErrnoException) => done(null, null, error.code ?? error.message));
      req.end(body?.bytes);
    });
  }
}

const dataOf = (answer: Answer | null): Record<string, unknown> =>
  ((answer?.body as { data?: Record<string, unknown> } | null)?.data ?? {}) as Record<string, unknown>;

/** A large plain-text document: numbered sections of varied sentences, `bytes` long. */
function largeText(bytes: number): Buffer {
  const topics = ['pricing', 'onboarding', 'security review', 'renewal', 'integrations', 'support', 'roadmap'];
  const parts: string[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const topic = topics[i % topics.length];
    const line = `Section ${i}. The customer raised ${topic} in meeting ${i}: they asked how ${topic} compares with last quarter, and the account team agreed to follow up within ${(i % 9) + 1} days.\n`;
    parts.push(line);
    size += line.length;
  }
  return Buffer.from(parts.join('').slice(0, bytes), 'utf8');
}

function multipart(filename: string, content: Buffer): { type: string; bytes: Buffer } {
  const head = `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: text/plain\r\n\r\n`;
  return {
    type: `multipart/form-data; boundary=${BOUNDARY}`,
    bytes: Buffer.concat([Buffer.from(head), content, Buffer.from(`\r\n--${BOUNDARY}--\r\n`)]),
  };
}

const QUESTIONS = [
  'What do customers say about pricing?',
  'Which accounts raised security concerns?',
  'Summarize the feedback on onboarding.',
];
/** Where a chat's long-poll stops: the product's own terminal statuses (the spec's: `complete`, never `completed`), or a question for the user. */
const CHAT_ENDED = new Set<string>([...TERMINAL_STATUSES, 'awaiting_input']);

export interface SoakOptions {
  seconds: number;
  ingestMb: number;
}

export async function benchSoak(options: SoakOptions): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'soak-'));
  const port = await freePort();
  const startedAt = performance.now();
  const { child, key } = await startServer(port, dataDir);
  const startupMs = performance.now() - startedAt;
  const budget = { left: MAX_REQUESTS };
  const client = new Client(port, key, budget);
  const shared = new Agent({ keepAlive: true, maxSockets: 16 });
  const lone = new Agent({ keepAlive: true, maxSockets: 1 });
  const deadline = Date.now() + options.seconds * 1000;
  const running = () => Date.now() < deadline && budget.left > 0;
  const ingest = { bytes: 0, uploadMs: NaN, readyMs: NaN, status: 'not started', nodes: 0 };
  let chats = 0;
  let chatsEnded = 0;

  const readPaths = ['/setup/status', '/search/fields', '/context-entries', '/knowledge-base'];
  const reader = async (n: number) => {
    for (let i = n; running(); i++) await client.call('read', shared, 'GET', readPaths[i % readPaths.length] as string);
  };
  const idleReader = async () => {
    while (running()) {
      await client.call('idle read', lone, 'GET', '/setup/status');
      await sleep(between(5_500, 7_000));
    }
  };
  const writer = async (n: number) => {
    for (let i = 0; running(); i++) {
      const body = Buffer.from(
        JSON.stringify({ scope: 'member', title: `Soak note ${n}.${i}`, body: `Written by the soak, client ${n}.` }),
      );
      const created = await client.call('write', shared, 'POST', '/context-entries', {
        type: 'application/json',
        bytes: body,
      });
      const id = dataOf(created).id;
      if (typeof id === 'string') await client.call('write', shared, 'DELETE', `/context-entries/${id}`);
      await sleep(between(50, 200));
    }
  };
  const chatter = async () => {
    for (let i = 0; running(); i++) {
      const body = Buffer.from(JSON.stringify({ input: QUESTIONS[i % QUESTIONS.length] }));
      const started = await client.call('chat start', shared, 'POST', '/chat', {
        type: 'application/json',
        bytes: body,
      });
      const runId = dataOf(started).run_id;
      if (typeof runId !== 'string') {
        await sleep(1_000);
        continue;
      }
      chats++;
      while (running()) {
        const read = await client.call('chat read', shared, 'GET', `/chat/runs/${runId}?wait_ms=10000`);
        if (read?.status !== 200) break;
        if (CHAT_ENDED.has(String(dataOf(read).status))) {
          chatsEnded++;
          break;
        }
      }
    }
  };
  const ingester = async () => {
    await sleep(2_000);
    const content = largeText(options.ingestMb * 1024 * 1024);
    ingest.bytes = content.length;
    const t = performance.now();
    const uploaded = await client.call(
      'ingest upload',
      shared,
      'POST',
      '/knowledge-base',
      multipart('soak.txt', content),
    );
    ingest.uploadMs = performance.now() - t;
    const id = dataOf(uploaded).id;
    ingest.status = uploaded ? `HTTP ${uploaded.status}` : 'no answer';
    if (typeof id !== 'string') return;
    while (running()) {
      const doc = dataOf(await client.call('ingest read', shared, 'GET', `/knowledge-base/${id}`));
      ingest.status = String(doc.status);
      if (doc.status !== 'processing') {
        ingest.readyMs = performance.now() - t;
        ingest.nodes = Number(doc.node_count ?? doc.nodes ?? 0);
        break;
      }
      await sleep(1_000);
    }
  };

  let exitMs = NaN;
  try {
    await Promise.all([...[0, 1, 2, 3].map(reader), idleReader(), writer(0), writer(1), chatter(), ingester()]);
  } finally {
    shared.destroy();
    lone.destroy();
    const stopAt = performance.now();
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    const killer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    await exited;
    clearTimeout(killer);
    exitMs = performance.now() - stopAt;
    rmSync(dataDir, { recursive: true, force: true });
  }

  const outcomes = client.outcomes;
  const kinds = [...new Set(outcomes.map((o) => o.kind))];
  const transportErrors = outcomes.filter((o) => o.status === null);
  printTable(
    `Soak: the embedded default (npm start; first start ${(startupMs / 1000).toFixed(1)} s) for ${options.seconds} s of mixed traffic over kept-alive connections (loopback), per kind`,
    kinds.map((kind) => {
      const mine = outcomes.filter((o) => o.kind === kind);
      const answered = mine.filter((o) => o.status !== null);
      const statuses = new Map<number, number>();
      for (const o of answered) statuses.set(o.status as number, (statuses.get(o.status as number) ?? 0) + 1);
      const stats = latencyStats(answered.map((o) => o.ms));
      const sorted = answered.map((o) => o.ms).sort((a, b) => a - b);
      const p = (q: number) =>
        sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? NaN;
      return {
        kind,
        requests: mine.length,
        statuses: [...statuses].map(([s, n]) => `${s}: ${n}`).join(', '),
        'transport errors': mine.length - answered.length,
        'p50 ms': ms(stats.medianMs),
        'p95 ms': ms(stats.p95Ms),
        'p99 ms': ms(p(0.99)),
        'max ms': ms(sorted.at(-1) ?? NaN),
        'on a reused connection': `${((answered.filter((o) => o.reused).length / Math.max(1, answered.length)) * 100).toFixed(0)}%`,
      };
    }),
  );
  const errorsByCode = new Map<string, number>();
  for (const o of transportErrors) errorsByCode.set(o.error ?? '?', (errorsByCode.get(o.error ?? '?') ?? 0) + 1);
  printTable('Soak: summary', [
    {
      requests: outcomes.length,
      'transport errors': transportErrors.length,
      'by code': [...errorsByCode].map(([c, n]) => `${c}: ${n}`).join(', ') || '-',
      'chats started / ended': `${chats} / ${chatsEnded}`,
      ingest: `${(ingest.bytes / 1024 / 1024).toFixed(1)} MB text, upload ${ms(ingest.uploadMs)} ms, ${ingest.status}${Number.isFinite(ingest.readyMs) ? ` after ${(ingest.readyMs / 1000).toFixed(1)} s` : ''}`,
      'exit after SIGTERM ms': ms(exitMs),
      target: `0 transport errors: ${transportErrors.length === 0 ? 'met' : 'NOT met'}`,
    },
  ]);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const short = process.argv.includes('--short');
  const at = process.argv.indexOf('--seconds');
  const seconds = at > 0 ? Number(process.argv[at + 1]) : short ? 20 : 120;
  await benchSoak({ seconds, ingestMb: short ? 2 : 10 });
  process.exit(0);
}
