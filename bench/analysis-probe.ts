/**
 * A cheap request of one tenant while another tenant calls the heaviest analyses (the reads over every
 * conversation: renewal risk, champion changes, competitors, feature requests, talk ratio), in one
 * process as `npm start` runs them: the cheap request's p50/p99 and the event loop's delay p99/max,
 * beside the same cheap request with nothing else running (the baseline, same run), at 1x and 10x the
 * demo corpus. The analyses run twice: at the embedded database's pacing (a slice of conversations per
 * statement, the loop turning between two) and with the whole corpus as one slice (a server's pacing
 * on this embedded database: what one statement per read holds), so the slicing's effect reads inside
 * one run.
 *
 *   npx tsx bench/analysis-probe.ts [scale...]   (default 1 10)
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { API_PREFIX } from '../functions/http/env.js';
import { createApiKey } from '../functions/identity/api-keys.js';
import { createWorkspace, ensureMembership, ensureUser } from '../functions/identity/members.js';
import { declarePacing, EMBEDDED_PACING, type StatementPacing } from '../platform/db/pacing.js';
import { openBenchCorpus, type BenchCorpus } from './corpus-db.js';
import { printTable } from './report.js';

const BASELINE_MS = 3_000;
const HEAVY: readonly [path: string, body: unknown][] = [
  ['/analyses/renewal-risk', {}],
  ['/analyses/champion-changes', {}],
  ['/analyses/competitors', {}],
  ['/analyses/feature-requests', {}],
  ['/analyses/talk-ratio', {}],
];

const percentile = (sorted: readonly number[], p: number) =>
  sorted.length ? (sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0) : 0;

interface Phase {
  requests: number;
  p50: number;
  p99: number;
  loopP99: number;
  loopMax: number;
  analysesMs: number | null;
}

/** The cheap request, one after another, until `until` resolves; its latencies and the loop's delay meanwhile. */
async function probe(corpus: BenchCorpus, key: string, until: Promise<number | null>): Promise<Phase> {
  const url = `${corpus.services.config.publicUrl}${API_PREFIX}/setup/status`;
  const loop = monitorEventLoopDelay({ resolution: 5 });
  loop.enable();
  let done = false;
  let analysesMs: number | null = null;
  void until.then((ms) => {
    analysesMs = ms;
    done = true;
  });
  const latencies: number[] = [];
  while (!done) {
    const t = performance.now();
    const res = await corpus.app.request(url, { headers: { 'x-api-key': key } });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`GET /setup/status answered ${res.status}`);
    latencies.push(performance.now() - t);
  }
  loop.disable();
  latencies.sort((a, b) => a - b);
  return {
    requests: latencies.length,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    loopP99: loop.percentile(99) / 1e6,
    loopMax: loop.max / 1e6,
    analysesMs,
  };
}

async function heavyRound(corpus: BenchCorpus, pacing: StatementPacing): Promise<number> {
  declarePacing(corpus.db, pacing);
  const t = performance.now();
  for (const [path, body] of HEAVY) await corpus.post(path, body);
  return performance.now() - t;
}

async function measure(scale: number): Promise<Record<string, string | number>[]> {
  const corpus = await openBenchCorpus(scale);
  try {
    // The other tenant: its own workspace, member and key.
    const { workspaceId } = await createWorkspace(corpus.db, { name: 'Probe tenant' });
    const userId = await ensureUser(corpus.db, 'probe@probe.example');
    await ensureMembership(corpus.db, workspaceId, userId, 'viewer');
    const { key } = await createApiKey(corpus.db, {
      workspaceId,
      userId,
      name: 'probe',
      bundle: 'customer_agent',
      role: 'viewer',
      expiresAt: null,
    });
    const interactions = corpus.load.counts.interactions ?? '';
    // Warm both (prepared statements, caches) before measuring.
    await heavyRound(corpus, EMBEDDED_PACING);
    const idle = await probe(corpus, key, new Promise((r) => setTimeout(() => r(null), BASELINE_MS)));
    const sliced = await probe(corpus, key, heavyRound(corpus, EMBEDDED_PACING));
    const whole = await probe(
      corpus,
      key,
      heavyRound(corpus, { ...EMBEDDED_PACING, conversationsPerSlice: Number.MAX_SAFE_INTEGER }),
    );
    declarePacing(corpus.db, EMBEDDED_PACING);
    const row = (name: string, p: Phase) => ({
      scale: `${scale}x (${interactions} interactions)`,
      phase: name,
      requests: p.requests,
      'GET p50 ms': p.p50.toFixed(1),
      'GET p99 ms': p.p99.toFixed(1),
      'p99 / idle': (p.p99 / Math.max(idle.p99, 0.1)).toFixed(1),
      'loop p99 ms': p.loopP99.toFixed(1),
      'loop max ms': p.loopMax.toFixed(0),
      'analyses ms': p.analysesMs === null ? '' : Math.round(p.analysesMs),
    });
    return [row('idle (baseline)', idle), row('analyses, sliced', sliced), row('analyses, one slice', whole)];
  } finally {
    await corpus.close();
  }
}

export async function benchAnalysisProbe(
  scales: readonly number[] = [1, 10],
): Promise<Record<string, string | number>[]> {
  const rows: Record<string, string | number>[] = [];
  for (const scale of scales) rows.push(...(await measure(scale)));
  return rows;
}

export const analysisProbeTitle =
  'Another tenant calling the heaviest analyses: a cheap GET /setup/status and the event loop, beside idle';

if (import.meta.url === `file://${process.argv[1]}`) {
  const scales = process.argv.slice(2).map(Number);
  // Each scale's table as soon as it is measured (a 10x corpus takes minutes to load on a busy machine).
  for (const scale of scales.length ? scales : [1, 10])
    printTable(analysisProbeTitle, await benchAnalysisProbe([scale]));
}
