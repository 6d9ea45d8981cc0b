/**
 * Shared by the benchmarks: a fresh, migrated PGlite in a temporary data folder, the demo corpus
 * loaded into it, and the real app built over it (the one app factory, the same middleware as
 * production) with an API key, so a benchmark can call `POST /search/query` in-process and measure
 * what a client gets.
 *
 * The only port swapped is the rate limiter: `search.query` allows 10 calls a minute per user and a
 * benchmark makes hundreds. `LiftedRateLimiter` runs the real in-memory limiter (same algorithm,
 * same bookkeeping per call) with every rule's limit raised, so the limiter's own cost stays in the
 * measured path but never answers 429. Search is unmetered by the monthly quota unless a workspace
 * override sets a cap, and the bench workspace has none.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp, type App } from '../functions/app.js';
import { buildServices } from '../functions/build-services.js';
import { API_PREFIX } from '../functions/http/env.js';
import { createApiKey } from '../functions/identity/api-keys.js';
import { createWorkspace, ensureMembership, ensureUser } from '../functions/identity/members.js';
import type { SearchRequest } from '../functions/search/request.js';
import type { SearchResponse } from '../functions/search/response.js';
import type { Services } from '../functions/services.js';
import { ManualClock, type Clock } from '../platform/clock.js';
import { loadConfig } from '../platform/config.js';
import { migrateDatabase } from '../platform/db/migrate.js';
import { openPglite, type PgliteHandle } from '../platform/db/pglite.js';
import type { Database } from '../platform/db/port.js';
import { MemoryRateLimiter } from '../platform/limiter/memory.js';
import type { RateLimiter, RateLimitResult, RateLimitRule } from '../platform/limiter/port.js';
import { createLogger } from '../platform/log.js';
import { allPipelines } from '../functions/modules.js';
import { LocalTransport } from '../queues/transport/local.js';
import { loadDemoCorpus, type LoadCorpusResult } from '../functions/embedded/demo/load-corpus.js';

/** The corpus ends here (18 months back from it); every benchmark's clock stands at it. */
export const BENCH_NOW = new Date('2026-03-01T12:00:00Z');

const elapsed = (from: number) => Math.round(performance.now() - from);

// ---------------------------------------------------------------------------------------------
// A fresh database

export interface FreshDatabase {
  handle: PgliteHandle;
  /** The data folder (removed by close()). */
  dir: string;
  createMs: number;
  migrateMs: number;
  close(): Promise<void>;
}

/** Create PGlite in a new temporary data folder and apply the migrations, timing both. */
export async function openFreshDatabase(prefix = 'cip-bench-'): Promise<FreshDatabase> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  try {
    let t = performance.now();
    const handle = await openPglite({ dataDir: dir });
    const createMs = elapsed(t);
    t = performance.now();
    await migrateDatabase(handle);
    const migrateMs = elapsed(t);
    return {
      handle,
      dir,
      createMs,
      migrateMs,
      async close() {
        await handle.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

// ---------------------------------------------------------------------------------------------
// Nearest-neighbour recall

export type Hit = { id: string; distance: number };

/**
 * Recall@10 by distance, not by id: the corpus repeats sentences (templates), so many utterances
 * share a vector and tie; which of the tied ids an index returns is arbitrary, and counting ids
 * would call a perfectly good answer wrong. A hit counts when it is no farther than the exact
 * 10th neighbour (plus `tolerance`, for distances read back rounded).
 */
export function recallAt10(exact: readonly Hit[][], approx: readonly Hit[][], tolerance = 1e-6): number {
  let sum = 0;
  exact.forEach((truth, i) => {
    sum += recallOne(truth, approx[i] ?? [], tolerance);
  });
  return sum / Math.max(1, exact.length);
}

/** Recall of one answer against its exact top-k (see recallAt10). */
export function recallOne(truth: readonly Hit[], got: readonly Hit[], tolerance = 1e-6): number {
  const bound = (truth[truth.length - 1]?.distance ?? 0) + tolerance;
  return got.slice(0, truth.length).filter((h) => h.distance <= bound).length / Math.max(1, truth.length);
}

// ---------------------------------------------------------------------------------------------
// The app over a loaded corpus

/** The in-memory limiter with every rule's limit lifted (see the header). */
export class LiftedRateLimiter implements RateLimiter {
  readonly #inner: MemoryRateLimiter;

  constructor(clock: Clock) {
    this.#inner = new MemoryRateLimiter(clock);
  }

  async limit(key: string, rule: RateLimitRule): Promise<RateLimitResult> {
    return this.#inner.limit(key, { ...rule, limit: Number.MAX_SAFE_INTEGER });
  }

  async peek(key: string, rule: RateLimitRule): Promise<RateLimitResult> {
    return this.#inner.peek(key, { ...rule, limit: Number.MAX_SAFE_INTEGER });
  }

  async refund(key: string, rule: RateLimitRule): Promise<RateLimitResult> {
    return this.#inner.refund(key, { ...rule, limit: Number.MAX_SAFE_INTEGER });
  }
}

export class SearchCallError extends Error {
  constructor(
    readonly status: number,
    readonly body: string,
  ) {
    super(`POST /search/query answered ${status}: ${body.slice(0, 300)}`);
    this.name = 'SearchCallError';
  }
}

export interface BenchCorpus {
  scale: number;
  handle: PgliteHandle;
  db: Database;
  workspaceId: string;
  app: App;
  services: Services;
  /** A viewer's API key (Customer agent bundle: data:read). */
  apiKey: string;
  load: LoadCorpusResult;
  /** Wall time of create + migrate + load (with vector indexes at the default threshold). */
  setupMs: number;
  /** POST /search/query through the app, in-process; anything but 200 throws SearchCallError. */
  search(body: SearchRequest): Promise<SearchResponse>;
  /** POST any operation through the app with the viewer's key; its `data`, or a throw on anything but 200. */
  post<T>(path: string, body: unknown): Promise<T>;
  close(): Promise<void>;
}

const BENCH_OAUTH_SECRET = 'bench-oauth-secret-0123456789abcdefghijkl';

/**
 * A fresh database with the demo corpus at `scale` in one workspace, indexed the way a load leaves
 * it (ANALYZE, and the HNSW index once the vectors reach HNSW_MIN_VECTORS, i.e. from 100k), and the
 * real app over it with a viewer's API key.
 */
export async function openBenchCorpus(
  scale: number,
  options: { onChunk?: (p: { chunk: number; of: number }) => void } = {},
): Promise<BenchCorpus> {
  const started = performance.now();
  const fresh = await openFreshDatabase(`cip-bench-search-${scale}x-`);
  try {
    const db = fresh.handle.db;
    const { workspaceId } = await createWorkspace(db, { name: `Bench search ${scale}x` });
    const load = await loadDemoCorpus(db, workspaceId, {
      scale,
      now: BENCH_NOW,
      ...(options.onChunk ? { onChunk: options.onChunk } : {}),
    });
    const setupMs = elapsed(started);

    const clock = new ManualClock(BENCH_NOW);
    const config = loadConfig({
      APP_ENV: 'test',
      PUBLIC_URL: 'http://bench.local',
      LOG_LEVEL: 'silent',
      OAUTH_SIGNING_SECRET: BENCH_OAUTH_SECRET,
      // POST /simulate is off by default (coming soon); bench/simulate.ts measures it over this corpus.
      SIMULATE_ENABLED: '1',
    });
    const services = buildServices({
      config,
      db,
      oauthSecret: BENCH_OAUTH_SECRET,
      localQueueKeys: { current: 'bench-current-key-0123456789', next: 'bench-next-key-0123456789' },
      secretsEncryptionKey: 'bench-secrets-key-0123456789abcdefghijkl',
      clock,
      limiter: new LiftedRateLimiter(clock),
      log: createLogger('silent'),
      pipelines: allPipelines,
    });
    const { app } = createApp({ services });
    if (services.queue instanceof LocalTransport) services.queue.attach((req) => Promise.resolve(app.fetch(req)));

    const userId = await ensureUser(db, 'bench-viewer@bench.example');
    await ensureMembership(db, workspaceId, userId, 'viewer');
    const { key: apiKey } = await createApiKey(db, {
      workspaceId,
      userId,
      name: 'bench',
      bundle: 'customer_agent',
      role: 'viewer',
      expiresAt: null,
    });

    const url = `${config.publicUrl}${API_PREFIX}/search/query`;
    const search = async (body: SearchRequest): Promise<SearchResponse> => {
      const response = await app.request(url, {
        method: 'POST',
        headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      const text = await response.text();
      if (response.status !== 200) throw new SearchCallError(response.status, text);
      return (JSON.parse(text) as { data: SearchResponse }).data;
    };

    const post = async <T>(path: string, body: unknown): Promise<T> => {
      const response = await app.request(`${config.publicUrl}${API_PREFIX}${path}`, {
        method: 'POST',
        headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      const text = await response.text();
      if (response.status !== 200) throw new Error(`POST ${path} answered ${response.status}: ${text.slice(0, 300)}`);
      return (JSON.parse(text) as { data: T }).data;
    };

    return {
      scale,
      handle: fresh.handle,
      db,
      workspaceId,
      app,
      services,
      apiKey,
      load,
      setupMs,
      search,
      post,
      async close() {
        if (services.queue instanceof LocalTransport) await services.queue.close();
        await fresh.close();
      },
    };
  } catch (error) {
    await fresh.close();
    throw error;
  }
}
