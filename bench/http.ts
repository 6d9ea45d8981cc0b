/**
 * The hot path from outside: autocannon (10 connections) against the embedded app served by
 * @hono/node-server in a child process, each authenticated route run beside a bare Hono route
 * served by the same process in the same run (alternating), plus the SQL statements one warm
 * request issues, counted at the database port.
 *
 *   npx tsx bench/http.ts [seconds per run = 5] [rounds = 3]
 *
 * Each route and its bare route run alternately `rounds` times; the table gives medians, and each
 * round's ratio. Beside requests per second it gives the server's CPU time per request (user +
 * system of the server process): the bare route's rate is bounded by the load generator sharing
 * the machine's cores, so the CPU ratio shows what the app itself costs.
 *
 * Targets: authenticated reads ≥ 10% of the bare route with p99 ≤ 15 ms; openapi.json
 * ≥ 50% of the bare route; zero statements for authentication on a cache hit. GET /setup/status
 * also has p99 ≤ 5 ms with the background work running.
 *
 * The server runs the background work of `npm start` throughout, bare route and app alike: the demo
 * workspace is seeded, the local queue dispatches, and the scheduled tick runs every
 * BENCH_TICK_MS (1 s by default, thirty times as often as `npm start`, so that every run of a few
 * seconds has ticks in it; the table says how many ran). `BENCH_TICK_MS=0` measures without it.
 *
 * openapi.json is 271 KB (30 KB gzipped), and with a body that size the load generator is the
 * bottleneck, not the server: autocannon spends a whole core parsing the bytes (about 3,000 req/s
 * for the gzip body, which is hard to scan, against 9,000 for 30 KB of noise and 28,000 for 30 KB
 * of one repeated letter) while the server sits 87% idle. So the document is also measured beside
 * a bare Hono route serving the same bytes with the same headers, which isolates what the app
 * adds, and revalidated with If-None-Match (a 304, what a caching client costs) beside the
 * one-line bare route.
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import autocannon from 'autocannon';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { createApp } from '../functions/app.js';
import { buildServices } from '../functions/build-services.js';
import { createApiKey } from '../functions/identity/api-keys.js';
import { lastUsedRecorder } from '../functions/identity/credential-cache.js';
import { createWorkspace, ensureMembership, ensureUser } from '../functions/identity/members.js';
import { seedDemoWorkspace } from '../functions/embedded/demo-seed.js';
import { runScheduledTick } from '../functions/scheduled-tick.js';
import { IntervalScheduler } from '../platform/scheduler/interval.js';
import { LocalTransport } from '../queues/transport/local.js';
import { loadConfig } from '../platform/config.js';
import { migrateDatabase } from '../platform/db/migrate.js';
import { openPglite } from '../platform/db/pglite.js';
import { createLogger } from '../platform/log.js';
import { printTable } from './report.js';

const OPENAPI_PATH = '/api/platform/v1/openapi.json';
/** The scheduled tick's period in the server (0: no background work). */
const TICK_MS = Number(process.env.BENCH_TICK_MS ?? 1_000);

interface Target {
  name: string;
  path: string;
  authenticated: boolean;
  /** The bare route beside it: a one-line JSON answer, or the same document bytes served bare. */
  baseline: '/bare' | '/bare/openapi.json';
  gzip?: boolean;
  revalidate?: boolean;
  /** null: measured for the record, no target (the 304 is what a caching client costs). */
  minRatio: number | null;
  maxP99: number | null;
}

const TARGETS: readonly Target[] = [
  {
    name: 'GET /setup/status (API key)',
    path: '/api/platform/v1/setup/status',
    authenticated: true,
    baseline: '/bare',
    minRatio: 0.1,
    maxP99: 5,
  },
  {
    name: 'GET /search/fields (API key)',
    path: '/api/platform/v1/search/fields',
    authenticated: true,
    baseline: '/bare',
    minRatio: 0.1,
    maxP99: 15,
  },
  {
    name: 'GET /openapi.json',
    path: OPENAPI_PATH,
    authenticated: false,
    baseline: '/bare/openapi.json',
    minRatio: 0.5,
    maxP99: null,
  },
  {
    name: 'GET /openapi.json (gzip accepted)',
    path: OPENAPI_PATH,
    authenticated: false,
    baseline: '/bare/openapi.json',
    gzip: true,
    minRatio: 0.5,
    maxP99: null,
  },
  {
    name: 'GET /openapi.json (If-None-Match: 304)',
    path: OPENAPI_PATH,
    authenticated: false,
    baseline: '/bare',
    revalidate: true,
    minRatio: null,
    maxP99: null,
  },
];

interface Ready {
  port: number;
  key: string;
  etag: string;
  statements: Record<string, { total: number; auth: number }>;
}

/** The server side: the app over a migrated in-memory PGlite with one member and key, and a bare route. */
async function serveApp(): Promise<void> {
  // Statements are recorded only while one request per target is counted, not under load.
  let statements: string[] | null = null;
  const handle = await openPglite({ onQuery: (sql) => statements?.push(sql) });
  await migrateDatabase(handle);
  const config = loadConfig({
    APP_ENV: 'development',
    LOG_LEVEL: 'silent',
    RATE_LIMIT_GLOBAL_PER_MIN: '100000000',
    PUBLIC_URL: 'http://127.0.0.1',
  });
  const services = buildServices({
    config,
    db: handle.db,
    oauthSecret: 'bench-oauth-secret-0123456789abcdefghijkl',
    localQueueKeys: { current: 'bench-current-key-0123456789', next: 'bench-next-key-0123456789' },
    secretsEncryptionKey: 'bench-secrets-key-0123456789abcdefghijkl',
    log: createLogger('silent'),
  });
  const { app } = createApp({ services, precompress: true });
  // The background work of `npm start`: the demo workspace's data, the queue, the scheduled tick.
  let ticks = 0;
  if (TICK_MS > 0) {
    await seedDemoWorkspace(handle.db);
    if (services.queue instanceof LocalTransport) services.queue.attach(async (req) => app.fetch(req));
    // The first start's own work (the demo's centroids) is done before anything is measured.
    await runScheduledTick(services, new Date());
    if (services.queue instanceof LocalTransport) await services.queue.drain();
  }
  const scheduler = new IntervalScheduler(TICK_MS, createLogger('silent'));
  const tick = async (at: Date) => {
    await runScheduledTick(services, at);
    ticks++;
  };
  if (TICK_MS > 0) scheduler.start(tick);
  const { workspaceId } = await createWorkspace(handle.db, { name: 'Bench' });
  const userId = await ensureUser(handle.db, 'bench@bench.example');
  await ensureMembership(handle.db, workspaceId, userId, 'editor');
  const { key } = await createApiKey(handle.db, {
    workspaceId,
    userId,
    name: 'bench',
    bundle: 'customer_agent',
    role: 'editor',
    expiresAt: null,
  });

  // Statements of one warm request per target (the second request: the credential cache is filled by the first).
  const counts: Ready['statements'] = {};
  for (const target of TARGETS) {
    const request = () =>
      app.fetch(
        new Request(`http://127.0.0.1${target.path}`, { headers: target.authenticated ? { 'x-api-key': key } : {} }),
      );
    await (await request()).text();
    await lastUsedRecorder.settled();
    statements = [];
    const seen: string[] = statements;
    await (await request()).text();
    await lastUsedRecorder.settled();
    statements = null;
    counts[target.name] = {
      total: seen.length,
      auth: seen.filter((s) => /"api_keys"|"memberships"|"oauth_tokens"/.test(s)).length,
    };
  }

  // The same document bytes, served bare with the app's own headers (plain and gzip).
  const documents = await Promise.all(
    ([{}, { 'accept-encoding': 'gzip' }] as Record<string, string>[]).map(async (headers) => {
      const response = await app.fetch(new Request(`http://127.0.0.1${OPENAPI_PATH}`, { headers }));
      return { headers: Object.fromEntries(response.headers), bytes: new Uint8Array(await response.arrayBuffer()) };
    }),
  );
  const [plainDocument, gzipDocument] = documents as [(typeof documents)[number], (typeof documents)[number]];
  const bare = new Hono();
  bare.get('/bare', (c) => c.json({ ok: true }));
  // The scheduled tick paused and resumed between runs: the same route measured without it, in the same run.
  bare.post('/bare/ticks/:state', async (c) => {
    if (TICK_MS > 0 && c.req.param('state') === 'off') await scheduler.stop();
    if (TICK_MS > 0 && c.req.param('state') === 'on') scheduler.start(tick);
    return c.json({ ok: true });
  });
  // The server's own CPU time (user + system, µs), read between runs: what a request costs the server,
  // whatever the load generator on the same cores can drive.
  bare.get('/bare/cpu', (c) => {
    const { user, system } = process.cpuUsage();
    return c.json({ us: user + system, ticks });
  });
  bare.get('/bare/openapi.json', (c) => {
    const { bytes, headers } = /\bgzip\b/.test(c.req.header('accept-encoding') ?? '') ? gzipDocument : plainDocument;
    return c.body(bytes as Uint8Array<ArrayBuffer>, 200, headers);
  });
  const server = serve({
    fetch: (req) => (new URL(req.url).pathname.startsWith('/bare') ? bare.fetch(req) : app.fetch(req)),
    hostname: '127.0.0.1',
    port: 0,
  });
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  process.stdout.write(
    `${JSON.stringify({ port, key, etag: plainDocument.headers.etag ?? '', statements: counts } satisfies Ready)}\n`,
  );
}

/** Requests per second, p99 and the answers other than the expected status (200, or 304 on revalidation). */
interface Load {
  rps: number;
  p99: number;
  errors: number;
  /** Server CPU time per answered request, µs (user + system of the server process). */
  cpuPerRequest: number;
  /** Scheduled ticks finished in the server during the run. */
  ticks: number;
}

const serverCpu = async (base: string): Promise<{ us: number; ticks: number }> =>
  (await (await fetch(`${base}/bare/cpu`)).json()) as { us: number; ticks: number };

async function load(
  base: string,
  path: string,
  headers: Record<string, string>,
  seconds: number,
  expected = 200,
): Promise<Load> {
  const cpuBefore = await serverCpu(base);
  const result = await autocannon({ url: `${base}${path}`, connections: 10, duration: seconds, headers });
  const cpuAfter = await serverCpu(base);
  const cpu = cpuAfter.us - cpuBefore.us;
  const stats: Record<string, { count?: number }> = result.statusCodeStats ?? {};
  const answered = Object.values(stats).reduce((sum, { count }) => sum + (count ?? 0), 0);
  const unexpected = answered - (stats[String(expected)]?.count ?? 0);
  return {
    rps: result.requests.average,
    p99: result.latency.p99,
    errors: result.errors + unexpected,
    cpuPerRequest: cpu / Math.max(1, answered),
    ticks: cpuAfter.ticks - cpuBefore.ticks,
  };
}

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
};

async function measure(seconds: number, rounds: number): Promise<void> {
  const child = spawn(process.execPath, ['--import', 'tsx', new URL(import.meta.url).pathname, '--serve'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    const line = await new Promise<string>((resolve, reject) => {
      createInterface({ input: child.stdout }).once('line', resolve);
      child.once('exit', (code) => reject(new Error(`server exited (${code})`)));
    });
    const ready = JSON.parse(line) as Ready;
    const base = `http://127.0.0.1:${ready.port}`;
    const rows: Record<string, string | number>[] = [];
    await load(base, '/bare', {}, 1); // warm-up
    for (const target of TARGETS) {
      const headers: Record<string, string> = {
        ...(target.authenticated ? { 'x-api-key': ready.key } : {}),
        ...(target.gzip ? { 'accept-encoding': 'gzip' } : {}),
        ...(target.revalidate ? { 'if-none-match': ready.etag } : {}),
      };
      await load(base, target.path, headers, 1); // warm-up
      // Alternating runs, each pair in the same minute; the median of each figure across rounds.
      const bares: Load[] = [];
      const routes: Load[] = [];
      // Authenticated reads also without the tick, alternating with the others (their p99 beside the tick's).
      const quiet: Load[] = [];
      for (let round = 0; round < rounds; round++) {
        bares.push(await load(base, target.baseline, target.baseline === '/bare' ? {} : headers, seconds));
        routes.push(await load(base, target.path, headers, seconds, target.revalidate ? 304 : 200));
        if (target.authenticated && TICK_MS > 0) {
          await fetch(`${base}/bare/ticks/off`, { method: 'POST' });
          quiet.push(await load(base, target.path, headers, seconds));
          await fetch(`${base}/bare/ticks/on`, { method: 'POST' });
        }
      }
      const ratios = routes.map((route, i) => route.rps / (bares[i] as Load).rps);
      const ratio = median(ratios);
      const p99 = median(routes.map((r) => r.p99));
      const counts = ready.statements[target.name] ?? { total: NaN, auth: NaN };
      const met =
        (target.minRatio === null || ratio >= target.minRatio) &&
        (target.maxP99 === null || p99 <= target.maxP99) &&
        counts.auth === 0;
      const routeCpu = median(routes.map((r) => r.cpuPerRequest));
      const bareCpu = median(bares.map((r) => r.cpuPerRequest));
      rows.push({
        route: target.name,
        'req/s': Math.round(median(routes.map((r) => r.rps))),
        'bare route': target.baseline === '/bare' ? 'one-line JSON' : 'same bytes',
        'bare req/s': Math.round(median(bares.map((r) => r.rps))),
        'vs bare': `${(ratio * 100).toFixed(1)}%${rounds > 1 ? ` (${ratios.map((r) => (r * 100).toFixed(1)).join(', ')})` : ''}`,
        'p99 ms': p99,
        'p99 ms, tick paused': quiet.length > 0 ? median(quiet.map((r) => r.p99)) : '-',
        'bare p99 ms': median(bares.map((r) => r.p99)),
        'server CPU µs/request': Math.round(routeCpu),
        'bare CPU µs/request': Math.round(bareCpu),
        'bare/route CPU': `${((bareCpu / routeCpu) * 100).toFixed(1)}%`,
        'statements/request': counts.total,
        'auth statements': counts.auth,
        errors: routes.reduce((n, r) => n + r.errors, 0),
        'ticks during route runs': routes.reduce((n, r) => n + r.ticks, 0),
        target:
          target.minRatio === null
            ? 'none (for the record)'
            : `≥ ${target.minRatio * 100}%${target.maxP99 === null ? '' : `, p99 ≤ ${target.maxP99} ms`}, 0 auth statements: ${met ? 'met' : 'NOT met'}`,
      });
    }
    printTable(
      `HTTP hot path: autocannon, 10 connections, ${rounds} alternating rounds of ${seconds} s, each route beside a bare Hono route in the same server process (medians); ${TICK_MS > 0 ? `background work on: demo workspace, local queue, scheduled tick every ${TICK_MS} ms` : 'no background work (BENCH_TICK_MS=0)'}`,
      rows,
    );
  } finally {
    child.kill();
  }
}

export async function benchHttp(seconds = 5, rounds = 3): Promise<void> {
  await measure(seconds, rounds);
}

if (process.argv.includes('--serve')) {
  await serveApp();
} else if (import.meta.url === `file://${process.argv[1]}`) {
  await measure(Number(process.argv[2] ?? 5), Number(process.argv[3] ?? 3));
}
