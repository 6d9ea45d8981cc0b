/**
 * Searches the hybrid ranking's tunables (functions/search/semantic-hybrid.ts, HybridParams) on
 * QMSum's TRAIN meetings only: the meetings are loaded as bench/retrieval-real-speech.ts loads them,
 * each query's candidates (the HYBRID_CANDIDATES nearest utterances of its meeting's account) and the
 * turns around them are read once, and every setting of the grid orders them with the lane's own
 * `orderHybrid`, hydrated to turns as the lane hydrates. Prints precision@10 per domain for the
 * current HYBRID_PARAMS and the best setting found (coordinate descent) by the sum of the two domains' ratios to BM25, both above 1
 * (each domain's BM25 computed in the same run over the same meeting's turns). The validation
 * meetings are never read here: bench/retrieval-real-speech.ts reports them.
 *
 * Reading the cases loads and embeds every train meeting (minutes); `--cache FILE` keeps them in FILE
 * (JSON) and reads them from it when it exists, so a second search starts at once.
 *
 *   npx tsx bench/retrieval-real-speech-tune.ts [--cache FILE]
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { Bm25 } from '../functions/search/bm25.js';
import { compileSemanticFilters } from '../functions/search/semantic-filters.js';
import { vectorLiteral } from '../functions/search/semantic-format.js';
import {
  HYBRID_CANDIDATES,
  HYBRID_PARAMS,
  type ContextTurn,
  type HybridParams,
  orderHybrid,
  readContext,
  type Terms,
} from '../functions/search/semantic-hybrid.js';
import { embeddingTerms } from '../platform/model/local-text.js';
import { type Match, readUtteranceMatches } from '../functions/search/semantic-utterances.js';
import { systemClock } from '../platform/clock.js';
import { LiftedRateLimiter } from './corpus-db.js';
import { openEmptyBenchApp } from './engine.js';
import { goldTurns, loadQmsum } from './qmsum-data.js';
import { loadMeetings, requester } from './retrieval-real-speech.js';

const TOP = 10;
/** The widest context window the grid tries: each query's turns are read once at this width. */
const WIDEST_CONTEXT = 20;

interface Case {
  domain: 'product' | 'committee';
  query: string;
  candidates: Match[];
  context: ContextTurn[];
  gold: Set<number>;
  /** Original turn index of each stored turn index. */
  pushed: number[];
  bm25Precision: number;
}

async function readCases(): Promise<Case[]> {
  const meetings = loadQmsum().meetings.filter((m) => m.split === 'train');
  const app = await openEmptyBenchApp({ limiter: new LiftedRateLimiter(systemClock) });
  try {
    const request = await requester(app);
    const loaded = await loadMeetings(app, request, meetings);
    const { db } = app.handle;
    const embedder = app.services.embedder;
    const cases: Case[] = [];
    for (const l of loaded) {
      const all = new Bm25(l.meeting.turns.map((t) => t.text));
      const { filter } = compileSemanticFilters(
        [{ field: 'account_id', op: 'eq', value: l.accountId }],
        app.workspaceId,
      );
      for (const q of l.meeting.queries) {
        const [vector] = await embedder.embed([q.query]);
        if (!vector) throw new Error(`no vector for ${q.query}`);
        const { matches } = await readUtteranceMatches(
          db,
          app.workspaceId,
          embedder.id,
          vectorLiteral(vector),
          HYBRID_CANDIDATES,
          filter,
        );
        const candidates = matches.filter((m) => m.similarity > 0);
        const turnIds = [...new Set(candidates.map((m) => m.turnId).filter((t): t is string => t !== null))];
        const context = await readContext(db, app.workspaceId, turnIds, WIDEST_CONTEXT);
        const gold = goldTurns(q);
        const bm25 = all.top(q.query, TOP);
        cases.push({
          domain: l.meeting.domain,
          query: q.query,
          candidates,
          context,
          gold,
          pushed: l.pushed,
          bm25Precision: bm25.filter((i) => gold.has(i)).length / TOP,
        });
      }
    }
    return cases;
  } finally {
    await app.close();
  }
}

/** The context a read at `contextTurns` would have returned: the turns within it of a candidate's turn. */
function narrowed(c: Case, contextTurns: number): ContextTurn[] {
  const byId = new Map(c.context.map((t) => [t.id, t]));
  const near = new Map<string, number[]>();
  for (const m of c.candidates) {
    const t = m.turnId ? byId.get(m.turnId) : undefined;
    if (!t) continue;
    near.set(t.interaction_id, [...(near.get(t.interaction_id) ?? []), Number(t.turn_index)]);
  }
  return c.context.filter((t) =>
    (near.get(t.interaction_id) ?? []).some((i) => Math.abs(i - Number(t.turn_index)) <= contextTurns),
  );
}

/** The tokenizer, memoized: every setting reads the same texts. */
const seenTerms = new Map<string, ReturnType<Terms>>();
const terms: Terms = (text) => {
  let found = seenTerms.get(text);
  if (!found) {
    found = embeddingTerms(text);
    seenTerms.set(text, found);
  }
  return found;
};

/** Precision@10 of the hydrated order: distinct turns in match order, as the lane hydrates. */
function precisionOf(c: Case, params: HybridParams, context: ContextTurn[]): number {
  const ordered = orderHybrid(c.query, c.candidates, context, true, params, terms);
  const indexOf = new Map(c.context.map((t) => [t.id, Number(t.turn_index)]));
  const seen = new Set<string>();
  const top: number[] = [];
  for (const m of ordered) {
    if (!m.turnId || seen.has(m.turnId)) continue;
    seen.add(m.turnId);
    top.push(c.pushed[indexOf.get(m.turnId) ?? -1] ?? -1);
    if (top.length === TOP) break;
  }
  return top.filter((i) => c.gold.has(i)).length / TOP;
}

const mean = (xs: readonly number[]) => (xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length);

interface Scored {
  params: HybridParams;
  product: number;
  committee: number;
  productRatio: number;
  committeeRatio: number;
}

function evaluate(cases: readonly Case[], params: HybridParams, contexts: Map<Case, ContextTurn[]>): Scored {
  const of = (domain: Case['domain']) => cases.filter((c) => c.domain === domain);
  const p = (domain: Case['domain']) => mean(of(domain).map((c) => precisionOf(c, params, contexts.get(c) ?? [])));
  const base = (domain: Case['domain']) => mean(of(domain).map((c) => c.bm25Precision));
  const product = p('product');
  const committee = p('committee');
  return {
    params,
    product,
    committee,
    productRatio: product / base('product'),
    committeeRatio: committee / base('committee'),
  };
}

const GRID = {
  contextTurns: [4, 8, 12, 16, 20],
  contextDecay: [0.8, 0.9, 0.95],
  rrfK: [10, 30, 60],
  vectorWeight: [0, 0.15, 0.3, 0.6],
  informativeWords: [4, 8],
  k1: [0.6, 1.2, 2],
  b: [0.3, 0.75, 1],
};

/** Better: both domains above BM25, and a larger sum of the two ratios to it. */
const better = (x: Scored, y: Scored): boolean =>
  Math.min(x.productRatio, x.committeeRatio) > 1 &&
  x.productRatio + x.committeeRatio > y.productRatio + y.committeeRatio + 1e-9;

if (import.meta.url === `file://${process.argv[1]}`) {
  const cacheAt = process.argv.indexOf('--cache');
  const cache = cacheAt > 0 ? process.argv[cacheAt + 1] : undefined;
  const cases: Case[] =
    cache && existsSync(cache)
      ? (JSON.parse(readFileSync(cache, 'utf8')) as (Omit<Case, 'gold'> & { gold: number[] })[]).map((c) => ({
          ...c,
          gold: new Set(c.gold),
        }))
      : await readCases();
  if (cache && !existsSync(cache))
    writeFileSync(cache, JSON.stringify(cases.map((c) => ({ ...c, gold: [...c.gold] }))));
  const contexts = new Map<number, Map<Case, ContextTurn[]>>();
  const contextAt = (w: number) => {
    let found = contexts.get(w);
    if (!found) {
      found = new Map(cases.map((c) => [c, narrowed(c, w)]));
      contexts.set(w, found);
    }
    return found;
  };
  const line = (s: Scored) =>
    `product ${s.product.toFixed(3)} (${s.productRatio.toFixed(2)}x)  committee ${s.committee.toFixed(3)} (${s.committeeRatio.toFixed(2)}x)  ${JSON.stringify(s.params)}`;
  let best = evaluate(cases, HYBRID_PARAMS, contextAt(HYBRID_PARAMS.contextTurns));
  process.stdout.write(`train meetings, ${cases.length} queries\ncurrent: ${line(best)}\n`);
  // Coordinate descent from the current setting: one tunable at a time over its grid, kept when better.
  for (let round = 1; round <= 2; round++) {
    let moved = false;
    for (const key of Object.keys(GRID) as (keyof typeof GRID)[]) {
      for (const value of GRID[key]) {
        if (best.params[key] === value) continue;
        const params = { ...best.params, [key]: value };
        const scored = evaluate(cases, params, contextAt(params.contextTurns));
        process.stdout.write(`  ${line(scored)}\n`);
        if (better(scored, best)) {
          best = scored;
          moved = true;
        }
      }
      process.stdout.write(`after ${key} (round ${round}): ${line(best)}\n`);
    }
    if (!moved) break;
  }
  process.stdout.write(`best: ${line(best)}\n`);
  process.exit(0);
}
