/**
 * Latency through the production form (`npx tsx bench/edge.ts [samples]`): the worker bundle in
 * workerd against the local stack (edge/stack.ts), each request type at 0 ms and at 20 ms simulated
 * RTT (10 ms each way on the database relay, on every Upstash REST call and QStash publish, and on
 * each WebSocket's set-up: 2 round trips before it opens; once each way on each SQL-over-HTTP request).
 * For each: the round trips counted at the relay (connections, queries, of which SQL over HTTP) and
 * Upstash calls, and the median time as multiples of the simulated
 * RTT. `(t20 - t0) / RTT` is the number of round trips actually on the critical path, whatever the
 * machine's speed; absolute times are not reported (they are this shared machine's, not Neon's).
 *
 * Not covered: the OAuth code exchange (each sample needs a fresh consent), and QStash's own
 * delivery latency (the stand-in delivers at once after the publish round trip).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { DEMO_ADMIN_EMAIL } from '../functions/embedded/demo-bootstrap.js';
import { createApiKey } from '../functions/identity/api-keys.js';
import { ensureUser } from '../functions/identity/members.js';
import { localProxyOptions, openNeon } from '../platform/db/neon.js';
import { startEdgeStack, type EdgeStack } from '../edge/stack.js';
import { latencyStats } from './latency.js';

const SAMPLES = Number(process.argv[2] ?? 7);
const RTT_MS = 20;

const dataDir = mkdtempSync(join(tmpdir(), 'cip-edge-bench-'));
const stack: EdgeStack = await startEdgeStack({ dataDir, logLevel: 'error' });
const api = `${stack.url}/api/platform/v1`;
const adminKey = stack.adminKey as string;
const uncounted = openNeon({
  connectionString: stack.databaseUrl,
  webSocketConstructor: WebSocket,
  ...localProxyOptions(stack.uncountedWsProxy),
});
const userId = await ensureUser(uncounted.db, DEMO_ADMIN_EMAIL);
const freshKey = async () =>
  (
    await createApiKey(uncounted.db, {
      workspaceId: stack.workspaceId,
      userId,
      name: 'edge bench',
      bundle: 'full_admin',
      role: 'admin',
      expiresAt: null,
    })
  ).key;

const json = (key: string | undefined, body?: unknown): RequestInit => ({
  method: body === undefined ? 'GET' : 'POST',
  headers: {
    ...(key ? { 'x-api-key': key } : {}),
    ...(body === undefined ? {} : { 'content-type': 'application/json' }),
  },
  ...(body === undefined ? {} : { body: JSON.stringify(body) }),
});

async function call(url: string, init: RequestInit, expected: number): Promise<Response> {
  const response = await fetch(url, init);
  await response.arrayBuffer();
  if (response.status !== expected) throw new Error(`${init.method} ${url}: ${response.status}, expected ${expected}`);
  return response;
}

/** A chat run from POST /chat until its read says complete (long-polled). */
async function chatToComplete(): Promise<void> {
  const started = await fetch(`${api}/chat`, json(adminKey, { input: 'What did customers say about pricing?' }));
  const { data } = (await started.json()) as { data: { run_id: string } };
  for (;;) {
    const read = await fetch(`${api}/chat/runs/${data.run_id}?wait_ms=5000`, json(adminKey));
    const run = (await read.json()) as { data: { status: string } };
    if (run.data.status === 'complete') return;
    if (['failed', 'canceled'].includes(run.data.status)) throw new Error(`chat run ${run.data.status}`);
  }
}

interface Target {
  name: string;
  /** Prepare what one sample needs, untimed (a fresh key for a first read). */
  prepare?: () => Promise<string>;
  run: (prepared: string | undefined) => Promise<unknown>;
}

const FILTER = {
  surface: 'deals',
  filters: [{ field: 'stage', op: 'in', value: ['proposal', 'negotiation'] }],
  group_by: ['stage'],
  metrics: [{ fn: 'count' }],
};
const targets: Target[] = [
  {
    name: 'GET /setup/status, first use of a key in the isolate',
    prepare: freshKey,
    run: (key) => call(`${api}/setup/status`, json(key), 200),
  },
  { name: 'GET /setup/status, steady', run: () => call(`${api}/setup/status`, json(adminKey), 200) },
  { name: 'POST /search/query, filter lane', run: () => call(`${api}/search/query`, json(adminKey, FILTER), 200) },
  {
    name: 'GET /agents/{unknown}, 404',
    run: () => call(`${api}/agents/00000000-0000-7000-8000-0000000e0404`, json(adminKey), 404),
  },
  { name: 'GET /setup/status without a credential, 401', run: () => call(`${api}/setup/status`, json(undefined), 401) },
  { name: 'POST /chat to complete (its stage deliveries, long-polled)', run: chatToComplete },
];

function setDelay(oneWayMs: number): void {
  stack.relay.setOneWayDelay(oneWayMs);
  stack.redis.setOneWayDelay(oneWayMs);
  stack.qstash.setOneWayDelay(oneWayMs);
}

async function settle(): Promise<void> {
  if (!(await stack.qstash.whenIdle(60_000)) || !(await stack.relay.whenIdle(60_000))) throw new Error('no settle');
}

interface Row {
  name: string;
  connections: number;
  queries: number;
  http: number;
  redis: number;
  medianMs: Record<number, number>;
}

const rows: Row[] = [];
try {
  for (const target of targets) {
    const row: Row = { name: target.name, connections: 0, queries: 0, http: 0, redis: 0, medianMs: {} };
    const times: Record<number, number[]> = { 0: [], [RTT_MS]: [] };
    // One untimed warm-up (the isolate's first sight of a route), then the two RTTs alternately
    // (0, 20, 0, 20, ...), so a slow spell of this shared machine lands on both sides.
    stack.redis.flush();
    await target.run(target.prepare ? await target.prepare() : undefined);
    await settle();
    for (let i = 0; i < SAMPLES; i += 1) {
      for (const rtt of [0, RTT_MS]) {
        const prepared = target.prepare ? await target.prepare() : undefined;
        await settle();
        setDelay(rtt / 2);
        // Rate limits (search: 10 a minute per member) must not answer 429 to a bench's repeats.
        stack.redis.flush();
        stack.relay.resetCounters();
        stack.redis.resetCounters();
        const t = performance.now();
        await target.run(prepared);
        times[rtt]?.push(performance.now() - t);
        await settle();
        setDelay(0);
        const counted = stack.relay.counters();
        row.connections = counted.connectionsOpened;
        row.queries = counted.queries;
        row.http = counted.httpRequests;
        row.redis = stack.redis.counters().requests;
      }
    }
    for (const rtt of [0, RTT_MS]) row.medianMs[rtt] = latencyStats(times[rtt] ?? []).medianMs;
    rows.push(row);
    process.stderr.write(`${target.name}: done\n`);
  }
} finally {
  setDelay(0);
  await uncounted.close();
  await stack.stop();
  rmSync(dataDir, { recursive: true, force: true });
}

const x = (ms: number) => `${(ms / RTT_MS).toFixed(1)}x`;
const lines = [
  `Edge latency through workerd and the relay, ${SAMPLES} samples each, medians as multiples of the ${RTT_MS} ms simulated RTT`,
  '| Request | Connections | Queries (of which SQL over HTTP) | Upstash calls | DB round trips (3 a connection + queries) | at 0 ms RTT | at 20 ms RTT | critical-path round trips, (t20 - t0) / RTT |',
  '|---|---|---|---|---|---|---|---|',
  ...rows.map((r) => {
    const t0 = r.medianMs[0] ?? Number.NaN;
    const t20 = r.medianMs[RTT_MS] ?? Number.NaN;
    return `| ${r.name} | ${r.connections} | ${r.queries} (${r.http}) | ${r.redis} | ${3 * r.connections + r.queries} | ${x(t0)} | ${x(t20)} | ${((t20 - t0) / RTT_MS).toFixed(1)} |`;
  }),
];
process.stdout.write(`${lines.join('\n')}\n`);
