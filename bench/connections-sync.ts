/**
 * Connection syncs: how fast records come from the providers into the warehouse, beside the demo
 * corpus loader's rate measured in the same run, and whether a sync's memory stays flat as the
 * record count grows.
 *
 * - Baseline: `loadDemoCorpus` at 1x into an empty in-memory PGlite (COPY, local embedder):
 *   warehouse rows written per second.
 * - Gong: a sync of calls with transcripts from the local fake Gong (test/support/fake-providers.ts,
 *   a real HTTP server, run seeded in a child process as a real provider is elsewhere:
 *   bench/fake-provider-process.ts) through the real engine and local transport: interactions, participants,
 *   transcript turns and utterances (the customer's sentences embedded by the same local embedder)
 *   per second. HubSpot: companies, contacts and deals per second. "Rows" are counted the same way
 *   on both sides: rows of warehouse tables written for the workspace.
 * - Memory: the JS heap (after a forced GC where `--expose-gc` allows, else as sampled) during
 *   HubSpot syncs of 5,000 and 50,000 contacts: a sync holds one page at a time, so the peak above
 *   the starting heap should not grow with the record count. (PGlite's own memory is WASM memory,
 *   outside the JS heap, and grows with the data it stores, as any database's does.)
 *
 *   node --expose-gc --import tsx bench/connections-sync.ts [--quick]
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { sql } from 'drizzle-orm';
import { newId } from '../platform/ids.js';
import { openPglite } from '../platform/db/pglite.js';
import { migrateDatabase } from '../platform/db/migrate.js';
import { queryRows } from '../platform/db/port.js';
import { createWorkspace } from '../functions/identity/members.js';
import { startSync } from '../functions/connections/sync.js';
import { connections } from '../schema/index.js';
import { loadDemoCorpus } from '../functions/embedded/demo/load-corpus.js';
import type { FakeProviderReady } from './fake-provider-process.js';
import { SEED_NOW } from './fake-provider-seeds.js';
import { openEmptyBenchApp } from './engine.js';
import { printTable } from './report.js';

const NOW = SEED_NOW;
const WAREHOUSE = [
  'accounts',
  'contacts',
  'deals',
  'interactions',
  'participants',
  'transcript_turns',
  'utterances',
] as const;

const gc = (): void => (globalThis as { gc?: () => void }).gc?.();

async function loaderRate(): Promise<{ rows: number; ms: number }> {
  const handle = await openPglite({});
  try {
    await migrateDatabase(handle);
    const { workspaceId } = await createWorkspace(handle.db, { name: 'loader' });
    const t = performance.now();
    const result = await loadDemoCorpus(handle.db, workspaceId, { scale: 1, now: NOW });
    const ms = performance.now() - t;
    return { rows: Object.values(result.counts).reduce((a, b) => a + b, 0), ms };
  } finally {
    await handle.close();
  }
}

interface SyncFigures {
  rows: number;
  ms: number;
  stages: number;
  heapStartMb: number;
  heapPeakMb: number;
  /** Heap left after the sync, after a forced GC (null without --expose-gc). */
  heapRetainedMb: number | null;
}

/** A seeded fake provider in a child process (bench/fake-provider-process.ts), stopped by `stop`. */
async function spawnFake(kind: 'gong' | 'hubspot', count: number): Promise<FakeProviderReady & { stop(): void }> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', new URL('./fake-provider-process.ts', import.meta.url).pathname, kind, String(count)],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`the fake ${kind} exited (${code})`)));
  });
  return { ...(JSON.parse(line) as FakeProviderReady), stop: () => child.kill() };
}

async function timedSync(kind: 'gong' | 'hubspot', count: number): Promise<SyncFigures> {
  const fake = await spawnFake(kind, count);
  const app = await openEmptyBenchApp({
    env: kind === 'gong' ? { GONG_API_BASE_URL: fake.url } : { HUBSPOT_API_BASE_URL: fake.url },
  });
  try {
    const { services, queue, workspaceId } = app;
    const id = newId();
    await services.db.insert(connections).values({
      id,
      workspaceId,
      connectorType: kind,
      status: 'connected',
      createdBy: newId(),
      caller: {},
      fields: fake.apiId ? { api_id: fake.apiId } : {},
      config:
        kind === 'gong'
          ? {
              call_filters: {
                enabled: false,
                external_only: false,
                reps: [],
                exclude_participants: [],
                exclude_domains: [],
              },
              crm_recency: { window: 'all' },
            }
          : { crm_recency: { window: 'all' } },
      credentialsSealed: await services.secretBox.seal(JSON.stringify({ api_key: fake.apiKey })),
    });
    gc();
    const heapStart = process.memoryUsage().heapUsed;
    let heapPeak = heapStart;
    const sampler = setInterval(() => (heapPeak = Math.max(heapPeak, process.memoryUsage().heapUsed)), 5);
    const t = performance.now();
    await services.engine.transaction((scope) => startSync(scope, { id, workspaceId }, 'connect', null));
    await queue.drain(1_000_000);
    const ms = performance.now() - t;
    clearInterval(sampler);
    const canGc = typeof (globalThis as { gc?: unknown }).gc === 'function';
    gc();
    const heapEnd = process.memoryUsage().heapUsed;
    const counts = await queryRows<{ n: number }>(
      services.db,
      sql.raw(
        `select (${WAREHOUSE.map((t) => `(select count(*) from ${t} where workspace_id = '${workspaceId}')`).join(' + ')})::int as n`,
      ),
    );
    const [run] = await queryRows<{ status: string; pages: number }>(
      services.db,
      sql`select status, (select coalesce(sum((s->>'pages')::int), 0) from jsonb_array_elements(state->'streams') s)::int as pages from runs where kind = 'connection_sync'`,
    );
    if (run?.status !== 'complete') throw new Error(`the ${kind} sync ended ${run?.status}`);
    return {
      rows: Number(counts[0]?.n ?? 0),
      ms,
      stages: Number(run.pages) + 1,
      heapStartMb: heapStart / 2 ** 20,
      heapPeakMb: heapPeak / 2 ** 20,
      heapRetainedMb: canGc ? (heapEnd - heapStart) / 2 ** 20 : null,
    };
  } finally {
    await app.close();
    fake.stop();
  }
}

export async function benchConnectionSync(quick = false): Promise<Record<string, string | number>[]> {
  const calls = quick ? 100 : 300;
  const loader = await loaderRate();
  const loaderPerSecond = loader.rows / (loader.ms / 1000);
  const gongRun = await timedSync('gong', calls);
  const crm = quick ? 2_000 : 10_000;
  const hubspotRun = await timedSync('hubspot', crm);
  const small = await timedSync('hubspot', 5_000);
  const large = quick ? null : await timedSync('hubspot', 50_000);

  const rate = (f: SyncFigures) => f.rows / (f.ms / 1000);
  const row = (name: string, f: SyncFigures | null, records: string) =>
    f
      ? {
          measurement: name,
          records,
          'rows written': f.rows,
          'rows/s': Math.round(rate(f)),
          'vs loader': `${(rate(f) / loaderPerSecond).toFixed(2)}x`,
          stages: f.stages,
          'ms/stage': (f.ms / f.stages).toFixed(1),
          'heap peak growth (MB)': (f.heapPeakMb - f.heapStartMb).toFixed(1),
          'heap retained (MB)': f.heapRetainedMb === null ? 'needs --expose-gc' : f.heapRetainedMb.toFixed(1),
        }
      : {
          measurement: name,
          records,
          'rows written': 'skipped (--quick)',
          'rows/s': '',
          'vs loader': '',
          stages: '',
          'ms/stage': '',
          'heap peak growth (MB)': '',
          'heap retained (MB)': '',
        };
  return [
    {
      measurement: 'Demo corpus loader, 1x (baseline)',
      records: 'generated corpus',
      'rows written': loader.rows,
      'rows/s': Math.round(loaderPerSecond),
      'vs loader': '1.00x',
    },
    row(`Gong sync: ${calls} calls x 40 sentences (half embedded)`, gongRun, `${calls} calls`),
    row(`HubSpot sync: 1 company, ${crm.toLocaleString('en-US')} contacts`, hubspotRun, `${crm + 1} objects`),
    row('HubSpot sync, memory: 5,000 contacts', small, '5,001 objects'),
    row('HubSpot sync, memory: 50,000 contacts', large, '50,001 objects'),
  ];
}

export const connectionSyncTitle =
  'Connection syncs from local fake providers into PGlite vs. the demo corpus loader (target: at least half its rows/s; memory flat in the record count)';

if (import.meta.url === `file://${process.argv[1]}`) {
  printTable(connectionSyncTitle, await benchConnectionSync(process.argv.includes('--quick')));
  process.exit(0);
}
