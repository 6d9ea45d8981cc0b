/**
 * Fuzzy lane latency: natural-language lookups ("calls with Acme Logistics about pricing last
 * quarter") through `POST /search/query` with `mode: fuzzy` and `max_subqueries` 3 and 5, against
 * a baseline of one hand-written full-text query per ask: `websearch_to_tsquery` over
 * `interactions.search_tsv` (GIN-indexed), with the keywords and the kind / time window a person
 * would pick out of the sentence, the tenant and excluded-interaction predicates, ranked by
 * `ts_rank`, limit 50 (the fuzzy lane's default limit).
 *
 * Path: the real app, in-process (`app.request`) with a viewer's API key (bench/corpus-db.ts; the
 * per-user limit of search.query is lifted by swapping the limiter port, so nothing answers 429).
 * Written against the lane's public contract only (functions/search/request.ts, response.ts): a
 * warehouse row per result, `corpus.match_count`. Besides latency it reports how many rows each
 * side returned, the lane's plan (subqueries, and how many accounts the named company resolved
 * to, from detail.internal.plan), how many of the lane's rows belong to the account(s) the ask names, how many of
 * the baseline's rows the lane also returned, and whether the lane returned an interaction the
 * workspace excluded (it must not: fuzzy reads the warehouse, where
 * exclusions apply). While functions/search/fuzzy-lane.ts is the placeholder, the lane answers
 * 500 and the table says so, with the baseline still measured.
 *
 *   npx tsx bench/search-fuzzy.ts [scale]
 */
import { sql, type SQL } from 'drizzle-orm';
import { queryRows } from '../platform/db/port.js';
import { BENCH_NOW, openBenchCorpus, SearchCallError, type BenchCorpus } from './corpus-db.js';
import { medP95, ms, ratio, sampleInterleaved } from './latency.js';
import { printTable } from './report.js';

/** The quarter before BENCH_NOW's, as [start, end). */
function lastQuarter(now: Date): [string, string] {
  const q = Math.floor(now.getUTCMonth() / 3);
  const end = new Date(Date.UTC(now.getUTCFullYear(), q * 3, 1));
  const start = new Date(Date.UTC(end.getUTCFullYear(), end.getUTCMonth() - 3, 1));
  return [start.toISOString(), end.toISOString()];
}

interface FuzzyCase {
  /** What the user types. */
  query: string;
  /** Accounts the sentence names (checked to exist in the corpus). */
  accounts: string[];
  /** The hand-written baseline: websearch_to_tsquery text, and the structure a person reads off the sentence. */
  websearch: string;
  kind?: 'call' | 'meeting' | 'email';
  window?: [string, string];
}

const [lastQuarterStart, lastQuarterEnd] = lastQuarter(BENCH_NOW);

/** Account names of the generated corpus (functions/embedded/demo/corpus/vocabulary.ts), among its busiest at 1x. */
export const FUZZY_CASES: readonly FuzzyCase[] = [
  {
    query: 'calls with Acme Logistics about pricing last quarter',
    accounts: ['Acme Logistics'],
    websearch: 'Acme Logistics pricing',
    kind: 'call',
    window: [lastQuarterStart, lastQuarterEnd],
  },
  {
    query: 'emails from Cobalt Health about the renewal',
    accounts: ['Cobalt Health'],
    websearch: 'Cobalt Health renewal',
    kind: 'email',
  },
  {
    query: 'meetings with Lumen Logistics on SSO and the security review',
    accounts: ['Lumen Logistics'],
    websearch: 'Lumen Logistics security',
    kind: 'meeting',
  },
  {
    query: 'Glacier Logistics competitive evaluation',
    accounts: ['Glacier Logistics'],
    websearch: 'Glacier Logistics competitive evaluation',
  },
  {
    query: 'Ironwood Health "quarterly business review"',
    accounts: ['Ironwood Health'],
    websearch: 'Ironwood Health "quarterly business review"',
  },
  {
    query: 'renewal discussions with Acme Health or Tidewater Logistics',
    accounts: ['Acme Health', 'Tidewater Logistics'],
    websearch: 'Acme Health renewal or Tidewater Logistics renewal',
  },
  {
    // Five facets, so max_subqueries 5 plans more than 3.
    query:
      'calls with Glacier Logistics about pricing, the security review, Salesforce sync, onboarding and the renewal',
    accounts: ['Glacier Logistics'],
    websearch: ['pricing', 'security review', 'Salesforce sync', 'onboarding', 'renewal']
      .map((facet) => `Glacier Logistics ${facet}`)
      .join(' or '),
    kind: 'call',
  },
];

const LIMIT = 50;

function baselineSql(ws: string, c: FuzzyCase): SQL {
  const kind = c.kind ? sql` and t.kind = ${c.kind}` : sql``;
  const window = c.window
    ? sql` and t.occurred_at >= ${c.window[0]}::timestamptz and t.occurred_at < ${c.window[1]}::timestamptz`
    : sql``;
  return sql`select t.id, t.kind, t.title, t.occurred_at, t.account_id, a.name as account_name, ts_rank(t.search_tsv, q) as rank
    from interactions t left join accounts a on a.id = t.account_id and a.workspace_id = t.workspace_id,
      websearch_to_tsquery('english', ${c.websearch}) q
    where t.workspace_id = ${ws}
      and not exists (select 1 from excluded_interactions x where x.workspace_id = ${ws} and x.interaction_id = t.id)
      and t.search_tsv @@ q${kind}${window}
    order by rank desc, t.occurred_at desc, t.id
    limit ${LIMIT}`;
}

type LaneProbe =
  | {
      ok: true;
      status: string;
      rows: number;
      matches: number;
      overlap: number;
      excluded: number;
      onAccount: number | null;
      plan: string;
    }
  | { ok: false; status: number; reason: string };

async function probeLane(
  corpus: BenchCorpus,
  c: FuzzyCase,
  maxSubqueries: number,
  baselineIds: ReadonlySet<string>,
  excluded: ReadonlySet<string>,
): Promise<LaneProbe> {
  try {
    const response = await corpus.search({ mode: 'fuzzy', query: c.query, max_subqueries: maxSubqueries });
    if (response.mode_ran !== 'fuzzy') return { ok: false, status: 200, reason: `mode_ran ${response.mode_ran}` };
    const ids = response.results.map((r) => String(r.id ?? r.interaction_id ?? ''));
    const named = new Set(c.accounts);
    const withAccount = response.results.filter((r) => 'account_name' in r);
    const plan = response.detail.internal.plan;
    const planText = plan
      ? `${plan.subqueries.length} subquer${plan.subqueries.length === 1 ? 'y' : 'ies'}${plan.accounts.map((a) => `, "${a.asked}" -> ${a.matched.length} account${a.matched.length === 1 ? '' : 's'}`).join('')}`
      : 'no plan';
    return {
      ok: true,
      status: response.detail.internal.status,
      plan: planText,
      rows: response.results.length,
      matches: response.corpus.match_count,
      overlap: ids.filter((id) => baselineIds.has(id)).length,
      excluded: ids.filter((id) => excluded.has(id)).length,
      onAccount:
        withAccount.length === response.results.length
          ? withAccount.filter((r) => named.has(String(r.account_name))).length
          : null,
    };
  } catch (error) {
    if (error instanceof SearchCallError) {
      let reason = error.body.slice(0, 120);
      try {
        const parsed = JSON.parse(error.body) as { error?: { code?: string; message?: string } };
        reason = `${parsed.error?.code ?? '?'}: ${parsed.error?.message ?? ''}`.slice(0, 120);
      } catch {
        // not JSON
      }
      return { ok: false, status: error.status, reason };
    }
    throw error;
  }
}

export async function benchSearchFuzzy(
  corpus: BenchCorpus,
  options: { rounds?: number } = {},
): Promise<{ rows: Record<string, string | number>[]; laneReady: boolean }> {
  const rounds = options.rounds ?? (corpus.scale >= 10 ? 10 : 20);
  const ws = corpus.workspaceId;
  const names = [...new Set(FUZZY_CASES.flatMap((c) => c.accounts))];
  const present = await queryRows<{ name: string }>(
    corpus.db,
    sql`select distinct name from accounts where workspace_id = ${ws} and name in (${sql.join(
      names.map((n) => sql`${n}`),
      sql`, `,
    )})`,
  );
  const missing = names.filter((n) => !present.some((p) => p.name === n));
  if (missing.length > 0)
    throw new Error(`fuzzy bench: the ${corpus.scale}x corpus has no account named ${missing.join(', ')}`);
  const excluded = new Set(
    (
      await queryRows<{ id: string }>(
        corpus.db,
        sql`select interaction_id as id from excluded_interactions where workspace_id = ${ws}`,
      )
    ).map((r) => r.id),
  );

  const rows: Record<string, string | number>[] = [];
  let laneReady = true;
  for (const c of FUZZY_CASES) {
    const baseline = await queryRows<{ id: string; account_name: string | null }>(corpus.db, baselineSql(ws, c));
    const baselineOnAccount = baseline.filter(
      (r) => r.account_name !== null && c.accounts.includes(r.account_name),
    ).length;
    const baselineIds = new Set(baseline.map((r) => r.id));
    const probes = [
      await probeLane(corpus, c, 3, baselineIds, excluded),
      await probeLane(corpus, c, 5, baselineIds, excluded),
    ] as const;
    const ready = probes.every((p) => p.ok);
    laneReady &&= ready;
    const fns: (() => Promise<unknown>)[] = [() => queryRows(corpus.db, baselineSql(ws, c))];
    if (ready)
      fns.push(
        () => corpus.search({ mode: 'fuzzy', query: c.query, max_subqueries: 3 }),
        () => corpus.search({ mode: 'fuzzy', query: c.query, max_subqueries: 5 }),
      );
    const [base, lane3, lane5] = await sampleInterleaved(fns, { rounds, warmup: 2 });
    if (!base) throw new Error('missing samples');
    const describe = (p: LaneProbe) =>
      p.ok
        ? `${p.status === 'ok' ? '' : `status ${p.status}: `}${p.plan}; ${p.rows} rows (${p.matches} matches), ${p.onAccount ?? '?'}/${p.rows} on the named account${c.accounts.length > 1 ? 's' : ''}, ${p.overlap}/${baseline.length} of baseline${p.excluded > 0 ? `, ${p.excluded} EXCLUDED` : ''}`
        : `HTTP ${p.status} ${p.reason}`;
    rows.push({
      query: c.query,
      'baseline FTS ms (med/p95)': medP95(base),
      'baseline rows (on account)': `${baseline.length} (${baselineOnAccount})`,
      'lane max 3 ms': lane3 ? medP95(lane3) : '-',
      'max 3 / base': lane3 ? ratio(lane3.medianMs, base.medianMs) : '-',
      'lane max 5 ms': lane5 ? medP95(lane5) : '-',
      'max 5 / base': lane5 ? ratio(lane5.medianMs, base.medianMs) : '-',
      'lane answer (max 3 | max 5)': `${describe(probes[0])} | ${describe(probes[1])}`,
    });
  }
  return { rows, laneReady };
}

export const fuzzyTitle = (corpus: BenchCorpus, laneReady: boolean) =>
  `Search, fuzzy lane at ${corpus.scale}x: natural-language lookups vs one hand-written websearch_to_tsquery over interactions.search_tsv, ms median / p95${
    laneReady ? '' : ' (THE FUZZY LANE DID NOT ANSWER: still the placeholder? baseline only)'
  }`;

if (import.meta.url === `file://${process.argv[1]}`) {
  const scale = Number(process.argv.slice(2).find((a) => /^\d+(\.\d+)?$/.test(a)) ?? 1);
  const corpus = await openBenchCorpus(scale);
  try {
    process.stdout.write(`corpus ${scale}x loaded in ${ms(corpus.setupMs / 1000)} s\n`);
    const { rows, laneReady } = await benchSearchFuzzy(corpus);
    printTable(fuzzyTitle(corpus, laneReady), rows);
  } finally {
    await corpus.close();
  }
  process.exit(0);
}
