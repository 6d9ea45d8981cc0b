/**
 * The hot path from outside: autocannon (10 connections) against the embedded app served by
 * @hono/node-server in a child process, each authenticated route run beside a bare Hono route
 * served by the same process in the same run (alternating), plus the SQL statements one warm
 * request issues, counted at the database port.
 *
 *   npx tsx bench/http.ts [seconds per run = 5]
 *
 * Targets (issue 13): authenticated reads ≥ 10% of the bare route with p99 ≤ 15 ms; openapi.json
 * ≥ 50% of the bare route; zero statements for authentication on a cache hit.
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
import { loadConfig } from '../platform/config.js';
import { migrateDatabase } from '../platform/db/migrate.js';
import { openPglite } from '../platform/db/pglite.js';
import { createLogger } from '../platform/log.js';
import { printTable } from './report.js';

const TARGETS = [
  { name: 'GET /setup/status (API key)', path: '/api/platform/v1/setup/status', authenticated: true, minRatio: 0.1, maxP99: 15 },
  { name: 'GET /search/fields (API key)', path: '/api/platform/v1/search/fields', authenticated: true, minRatio: 0.1, maxP99: 15 },
  { name: 'GET /openapi.json', path: '/api/platform/v1/openapi.json', authenticated: false, minRatio: 0.5, maxP99: null },
  { name: 'GET /openapi.json (gzip accepted)', path: '/api/platform/v1/openapi.json', authenticated: false, minRatio: 0.5, maxP99: null, gzip: true },
] as const;

interface Ready {
  port: number;
  key: string;
  statements: Record<string, { total: number; auth: number }>;
}

/** The server side: the app over a migrated in-memory PGlite with one member and key, and a bare route. */
async function serveApp(): Promise<void> {
  let statements: string[] = [];
  const handle = await openPglite({ onQuery: (sql) => statements.push(sql) });
  await migrateDatabase(handle);
  const config = loadConfig({ APP_ENV: 'development', LOG_LEVEL: 'silent', RATE_LIMIT_GLOBAL_PER_MIN: '100000000', PUBLIC_URL: 'http://127.0.0.1' });
  const services = buildServices({
    config,
    db: handle.db,
    oauthSecret: 'bench-oauth-secret-0123456789abcdefghijkl',
    localQueueKeys: { current: 'bench-current-key-0123456789', next: 'bench-next-key-0123456789' },
    secretsEncryptionKey: 'bench-secrets-key-0123456789abcdefghijkl',
    log: createLogger('silent'),
  });
  const { app } = createApp({ services, precompress: true });
  const { workspaceId } = await createWorkspace(handle.db, { name: 'Bench' });
  const userId = await ensureUser(handle.db, 'bench@bench.example');
  await ensureMembership(handle.db, workspaceId, userId, 'editor');
  const { key } = await createApiKey(handle.db, { workspaceId, userId, name: 'bench', bundle: 'customer_agent', role: 'editor', expiresAt: null });

  // Statements of one warm request per target (the second request: the credential cache is filled by the first).
  const counts: Ready['statements'] = {};
  for (const target of TARGETS) {
    const request = () => app.fetch(new Request(`http://127.0.0.1${target.path}`, { headers: target.authenticated ? { 'x-api-key': key } : {} }));
    await (await request()).text();
    await lastUsedRecorder.settled();
    statements = [];
    await (await request()).text();
    await lastUsedRecorder.settled();
    counts[target.name] = { total: statements.length, auth: statements.filter((s) => /"api_keys"|"memberships"|"oauth_tokens"/.test(s)).length };
  }

  const bare = new Hono();
  bare.get('/bare', (c) => c.json({ ok: true }));
  const server = serve({ fetch: (req) => (new URL(req.url).pathname === '/bare' ? bare.fetch(req) : app.fetch(req)), hostname: '127.0.0.1', port: 0 });
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  process.stdout.write(`${JSON.stringify({ port, key, statements: counts } satisfies Ready)}\n`);
}

async function load(url: string, headers: Record<string, string>, seconds: number): Promise<{ rps: number; p99: number; errors: number }> {
  const result = await autocannon({ url, connections: 10, duration: seconds, headers });
  return { rps: result.requests.average, p99: result.latency.p99, errors: result.errors + result.non2xx };
}

async function measure(seconds: number): Promise<void> {
  const child = spawn(process.execPath, ['--import', 'tsx', new URL(import.meta.url).pathname, '--serve'], { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    const line = await new Promise<string>((resolve, reject) => {
      createInterface({ input: child.stdout }).once('line', resolve);
      child.once('exit', (code) => reject(new Error(`server exited (${code})`)));
    });
    const ready = JSON.parse(line) as Ready;
    const base = `http://127.0.0.1:${ready.port}`;
    const rows: Record<string, string | number>[] = [];
    await load(`${base}/bare`, {}, 1); // warm-up
    for (const target of TARGETS) {
      const headers: Record<string, string> = { ...(target.authenticated ? { 'x-api-key': ready.key } : {}), ...('gzip' in target ? { 'accept-encoding': 'gzip' } : {}) };
      await load(`${base}${target.path}`, headers, 1); // warm-up
      const bare = await load(`${base}/bare`, {}, seconds);
      const route = await load(`${base}${target.path}`, headers, seconds);
      const ratio = route.rps / bare.rps;
      const counts = ready.statements[target.name] ?? { total: NaN, auth: NaN };
      const met = ratio >= target.minRatio && (target.maxP99 === null || route.p99 <= target.maxP99) && counts.auth === 0;
      rows.push({
        route: target.name,
        'req/s': Math.round(route.rps),
        'bare req/s': Math.round(bare.rps),
        'vs bare': `${(ratio * 100).toFixed(1)}%`,
        'p99 ms': route.p99,
        'bare p99 ms': bare.p99,
        'statements/request': counts.total,
        'auth statements': counts.auth,
        errors: route.errors,
        target: `≥ ${target.minRatio * 100}%${target.maxP99 === null ? '' : `, p99 ≤ ${target.maxP99} ms`}, 0 auth statements: ${met ? 'met' : 'NOT met'}`,
      });
    }
    printTable(`HTTP hot path: autocannon, 10 connections, ${seconds} s per run, each route beside a bare Hono route in the same server process`, rows);
  } finally {
    child.kill();
  }
}

export async function benchHttp(seconds = 5): Promise<void> {
  await measure(seconds);
}

if (process.argv.includes('--serve')) {
  await serveApp();
} else if (import.meta.url === `file://${process.argv[1]}`) {
  await measure(Number(process.argv[2] ?? 5));
}
