import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, afterEach, describe, expect, it, onTestFinished, vi } from 'vitest';
import { openNeon } from '../platform/db/neon.js';
import worker, {
  createWorker,
  whenBodyEnds,
  type ExecutionContext,
  type ScheduledController,
  type WorkerEnv,
} from '../functions/worker.js';

const ROOT = resolve(import.meta.dirname, '..');

/** What must never reach the Workers bundle (stack notes: keep PGlite out of the worker). */
const FORBIDDEN = [
  '@electric-sql/pglite',
  'pglite.wasm',
  'PGlite',
  '@hono/node-server',
  'drizzle-orm/pglite',
  'node_modules/ws/',
];

describe('wrangler deploy --dry-run', () => {
  const outdir = mkdtempSync(join(tmpdir(), 'cip-worker-bundle-'));
  afterAll(() => rmSync(outdir, { recursive: true, force: true }));

  it('bundles functions/worker.ts without PGlite, @hono/node-server or ws', { timeout: 120_000 }, async () => {
    const result = await new Promise<{ code: number; stdout: string; stderr: string }>((done) => {
      execFile(
        join(ROOT, 'node_modules/.bin/wrangler'),
        ['deploy', '--dry-run', '--outdir', outdir],
        {
          cwd: ROOT,
          env: { ...process.env, WRANGLER_SEND_METRICS: 'false', CI: 'true' },
          timeout: 110_000,
          maxBuffer: 16 * 1024 * 1024,
        },
        (error, stdout, stderr) =>
          done({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
      );
    });
    expect(result.code, `${result.stdout}\n${result.stderr}`).toBe(0);
    expect(result.stdout).toContain('--dry-run: exiting now.');

    const bundlePath = join(outdir, 'worker.js');
    expect(existsSync(bundlePath)).toBe(true);
    const bundle = readFileSync(bundlePath, 'utf8');
    for (const needle of FORBIDDEN) expect(bundle.includes(needle), `bundle contains ${needle}`).toBe(false);
    // The entry's own code is there, and the bundle fits the Workers size limit (3 MiB gzipped, free plan).
    expect(bundle).toContain('Service misconfigured');
    expect(statSync(bundlePath).size).toBeGreaterThan(0);
    expect(gzipSync(bundle).length).toBeLessThan(3 * 1024 * 1024);
  });
});

// ---------------------------------------------------------------------------------------------

function fakeContext(): ExecutionContext & { settled(): Promise<unknown[]> } {
  const pending: Promise<unknown>[] = [];
  return {
    waitUntil: (p) => void pending.push(p),
    passThroughOnException: () => {},
    props: {},
    settled: () => Promise.all(pending),
  };
}

const VALID_ENV: WorkerEnv = {
  APP_ENV: 'development',
  LOG_LEVEL: 'silent',
  DATABASE_URL: 'postgres://user:pw@127.0.0.1:9/nowhere',
  PUBLIC_URL: 'https://cip.example.test',
  OAUTH_SIGNING_SECRET: 'worker-test-oauth-secret-0123456789abcdef',
  SECRETS_ENCRYPTION_KEY: 'worker-test-secrets-key-0123456789abcdef',
  QSTASH_TOKEN: 'qstash-test-token',
  QSTASH_CURRENT_SIGNING_KEY: 'sig_current_worker_test',
  QSTASH_NEXT_SIGNING_KEY: 'sig_next_worker_test',
};

/** A worker whose Neon pool never connects (no route used here queries), with its close observed. */
function workerWithSpiedDatabase(options: Parameters<typeof createWorker>[0] = {}) {
  const closes: string[] = [];
  const w = createWorker({
    ...options,
    openDatabase: (config) => {
      const handle = openNeon({ connectionString: config.DATABASE_URL });
      return {
        db: handle.db,
        close: async () => {
          closes.push(config.DATABASE_URL);
          await handle.close();
        },
      };
    },
  });
  return { worker: w, closes };
}

describe('worker.fetch', () => {
  afterEach(() => vi.restoreAllMocks());

  it('answers 500 with the error envelope and a correlation id when the environment is empty, logging the detail', async () => {
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
    const ctx = fakeContext();
    const res = await worker.fetch(new Request('https://cip.example.test/api/platform/v1/setup/status'), {}, ctx);
    expect(res.status).toBe(500);
    expect(await res.json()).toEqual({ error: { code: 'internal', message: 'Service misconfigured' } });
    expect(res.headers.get('x-correlation-id')).toBeTruthy();
    const logged = errors.mock.calls.map((args) => args.join(' ')).join('\n');
    expect(logged).toContain('DATABASE_URL');
    expect(logged).toContain('QSTASH_TOKEN');
    expect(logged).toContain('OAUTH_SIGNING_SECRET');
  });

  it('never echoes a configured value, in the response or in the log', async () => {
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
    const secret = 'too-short-secret-value';
    const env = { ...VALID_ENV, OAUTH_SIGNING_SECRET: secret, DATABASE_URL: 'mysql://root:hunter2@db/x' };
    const res = await createWorker().fetch(
      new Request('https://cip.example.test/api/platform/v1/openapi.json'),
      env,
      fakeContext(),
    );
    expect(res.status).toBe(500);
    const text = await res.text();
    const logged = errors.mock.calls.map((args) => args.join(' ')).join('\n');
    for (const value of [secret, 'hunter2', 'mysql://']) {
      expect(text).not.toContain(value);
      expect(logged).not.toContain(value);
    }
    expect(logged).toContain('OAUTH_SIGNING_SECRET');
    expect(logged).toContain('DATABASE_URL');
  });

  it('refuses a non-production worker without QStash, naming it', async () => {
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
    const { QSTASH_TOKEN: _t, QSTASH_CURRENT_SIGNING_KEY: _c, QSTASH_NEXT_SIGNING_KEY: _n, ...env } = VALID_ENV;
    const res = await createWorker().fetch(
      new Request('https://cip.example.test/api/platform/v1/openapi.json'),
      env,
      fakeContext(),
    );
    expect(res.status).toBe(500);
    expect(errors.mock.calls.flat().join('\n')).toMatch(/QSTASH_TOKEN.*required in the worker/);
  });

  it('refuses MODEL_PROVIDER=workers_ai without the AI binding', async () => {
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
    const res = await createWorker().fetch(
      new Request('https://cip.example.test/api/platform/v1/openapi.json'),
      { ...VALID_ENV, MODEL_PROVIDER: 'workers_ai' },
      fakeContext(),
    );
    expect(res.status).toBe(500);
    expect(errors.mock.calls.flat().join('\n')).toContain('Workers AI binding');
  });

  it('serves the app with per-request services and closes the pool in waitUntil', async () => {
    const { worker: w, closes } = workerWithSpiedDatabase();
    const env = { ...VALID_ENV };
    // Both requests inside one limiter window whatever the machine's speed: only Date is frozen.
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-11-26T00:00:05.000Z'));
    onTestFinished(() => {
      vi.useRealTimers();
    });
    for (let i = 0; i < 2; i++) {
      const ctx = fakeContext();
      const res = await w.fetch(
        new Request('https://cip.example.test/api/platform/v1/openapi.json', {
          headers: { 'cf-connecting-ip': '203.0.113.7' },
        }),
        env,
        ctx,
      );
      expect(res.status).toBe(200);
      expect(res.headers.get('x-correlation-id')).toBeTruthy();
      expect(res.headers.get('x-ratelimit-limit')).toBe('500');
      expect(res.headers.get('x-ratelimit-remaining')).toBe(String(499 - i));
      const doc = (await res.json()) as { openapi: string; servers?: { url: string }[] };
      expect(doc.openapi).toMatch(/^3\./);
      await ctx.settled();
      expect(closes).toHaveLength(i + 1);
    }
  });

  it('renders unknown routes as the not_found envelope', async () => {
    const { worker: w, closes } = workerWithSpiedDatabase();
    const ctx = fakeContext();
    const res = await w.fetch(new Request('https://cip.example.test/nope'), { ...VALID_ENV }, ctx);
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('not_found');
    await ctx.settled();
    expect(closes).toHaveLength(1);
  });
});

describe('whenBodyEnds', () => {
  it('settles at once for a complete body, and only after an event stream has been read', async () => {
    expect(
      await whenBodyEnds(new Response('{}', { headers: { 'content-type': 'application/json' } })).finished,
    ).toBeUndefined();

    const encoder = new TextEncoder();
    let push!: (chunk: string | null) => void;
    const source = new ReadableStream<Uint8Array>({
      start(controller) {
        push = (chunk) => (chunk === null ? controller.close() : controller.enqueue(encoder.encode(chunk)));
      },
    });
    const { response, finished } = whenBodyEnds(
      new Response(source, { status: 200, headers: { 'content-type': 'text/event-stream' } }),
    );
    let ended = false;
    void finished.then(() => (ended = true));
    push('data: 1\n\n');
    const reader = response.body!.getReader();
    await reader.read();
    await new Promise((r) => setTimeout(r, 10));
    expect(ended).toBe(false);
    push(null);
    expect((await reader.read()).done).toBe(true);
    await finished;
    expect(ended).toBe(true);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
  });
});

describe('worker.scheduled', () => {
  afterEach(() => vi.restoreAllMocks());
  const controller: ScheduledController = { cron: '* * * * *', scheduledTime: Date.UTC(2026, 0, 1), noRetry: () => {} };

  it('runs the registered cron hook with services, then closes the pool', async () => {
    const seen: string[] = [];
    const { worker: w, closes } = workerWithSpiedDatabase({
      cron: async ({ controller: c, services }) => {
        seen.push(`${c.cron} ${services.queue.name} ${services.config.publicUrl}`);
        expect(closes).toHaveLength(0);
      },
    });
    await w.scheduled(controller, { ...VALID_ENV }, fakeContext());
    expect(seen).toEqual(['* * * * * qstash https://cip.example.test']);
    expect(closes).toHaveLength(1);
  });

  it('logs that the cron fired when no hook is registered, at info level on console.log', async () => {
    const infos = vi.spyOn(console, 'log').mockImplementation(() => {});
    const { worker: w, closes } = workerWithSpiedDatabase();
    await w.scheduled(controller, { ...VALID_ENV, LOG_LEVEL: 'info' }, fakeContext());
    expect(infos.mock.calls.flat().join('\n')).toContain('cron fired');
    expect(closes).toHaveLength(0);
  });

  it('fails, logging the detail, when misconfigured', async () => {
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
    await expect(createWorker().scheduled(controller, {}, fakeContext())).rejects.toThrow('Service misconfigured');
    expect(errors.mock.calls.flat().join('\n')).toContain('DATABASE_URL');
  });
});
