/**
 * Lookalike and enrichment figures, through the app in-process on the bench corpus
 * (bench/corpus-db.ts), each beside a baseline sampled alternately with it in the same run:
 *   - centroid materialization (one transaction: delete, aggregate, insert), beside the same
 *     aggregates computed and discarded (the read and the averaging any materialization does); with
 *     the cost per company and per 1,000 member utterances, so 1x and 10x show how it scales;
 *   - `POST /lookalike` (find, 10 neighbours) for companies spread over the workspace, beside the
 *     hand-written nearest-centroid scan (the same top 10, checked id for id before timing);
 *   - `POST /enrich/company` (first-party tier: the viewer's key lacks `external_search:execute`) for
 *     the busiest account as the corpus makes it, and for an account made to hold exactly 1,000
 *     interactions (counted by SQL), beside the bare read of its newest 2,000 customer utterances with
 *     their vectors (the candidates every first-party read fetches); matched_count is checked against
 *     an independent count;
 *   - the full brief built inline (`buildFullBrief`: the evidence read, the unconfigured external
 *     search, composition and the grounding verifier) for the 1,000-interaction account, beside its
 *     evidence read alone.
 *
 * The 1,000-interaction account takes interactions from other accounts (the corpus gives an account
 * about 15-40 at any scale; at 1x it holds 1,000 interactions in all, so there it takes every one).
 * They are given back before benchEnrich returns, so the corpus is as loaded for what runs after it.
 *
 *   npx tsx bench/lookalike-enrich.ts [scales...]   (default: 1 10)
 */
import { sql } from 'drizzle-orm';
import { buildFullBrief } from '../functions/enrich/build.js';
import { readEvidence } from '../functions/enrich/evidence.js';
import type { EnrichResponse } from '../functions/enrich/schemas.js';
import { companySubject } from '../functions/enrich/subject.js';
import { materializeCentroids } from '../functions/lookalike/centroids.js';
import type { LookalikeFindResponseSchema } from '../functions/lookalike/schemas.js';
import { queryRows, type Queryable } from '../platform/db/port.js';
import type { z } from '@hono/zod-openapi';
import { openBenchCorpus, type BenchCorpus } from './corpus-db.js';
import { latencyStats, medP95, ms, ratio, sampleInterleaved } from './latency.js';
import { printTable } from './report.js';

type Row = Record<string, string | number>;
type FindResponse = z.output<typeof LookalikeFindResponseSchema>;

/** Seeds of the find figure: companies spread evenly over the workspace's centroids. */
const FIND_SEEDS = 50;
const FIND_LIMIT = 10;
const BIG_ACCOUNT_INTERACTIONS = 1_000;
/** The first-party read ranks at most this many of a subject's newest utterances (functions/enrich/evidence.ts). */
const CANDIDATES = 2_000;

const count = async (db: Queryable, query: ReturnType<typeof sql>): Promise<number> =>
  Number((await queryRows<{ n: number }>(db, query))[0]?.n ?? 0);

// ---------------------------------------------------------------------------------------------
// Lookalike

/** The figures of one scale, kept so runs at two scales can be set side by side (lookalikeScaling). */
export interface LookalikeFigures {
  scale: number;
  rows: Row[];
  materialize: { medianMs: number; companies: number; deals: number; members: number };
  find: { medianMs: number; centroids: number };
}

export async function benchLookalike(corpus: BenchCorpus): Promise<LookalikeFigures> {
  const { db, workspaceId, services } = corpus;
  const embedder = services.embedder.id;
  const rows: Row[] = [];

  // The utterances the centroids average (what materializeCentroids reads), and their aggregates discarded.
  const member = sql`select i.account_id, i.deal_id, v.embedding
      from utterances u
      join interactions i on i.id = u.interaction_id
      join utterance_vectors v on v.workspace_id = u.workspace_id and v.embedder = u.embedder and v.text_hash = u.text_hash
      where u.workspace_id = ${workspaceId} and u.embedder = ${embedder} and u.side = 'external'
        and (i.account_id is not null or i.deal_id is not null)`;
  const aggregatesOnly = () =>
    queryRows(
      db,
      sql`with member as (${member}), centroid as (
            select account_id as id, avg(embedding) as c, count(*) as n from member where account_id is not null group by account_id
            union all
            select deal_id, avg(embedding), count(*) from member where deal_id is not null group by deal_id)
          select count(*)::int as n from centroid`,
    );
  let counts = { companies: 0, deals: 0 };
  const materialize = async () => {
    counts = await db.transaction((tx) => materializeCentroids(tx, workspaceId, embedder, services.clock.now()));
  };
  const members = await count(db, sql`select count(*)::int as n from (${member}) m`);
  const [materializeStats, aggregateStats] = await sampleInterleaved([materialize, aggregatesOnly], {
    rounds: corpus.scale >= 10 ? 3 : 7,
    warmup: 1,
  });
  if (!materializeStats || !aggregateStats) throw new Error('missing samples');
  rows.push({
    what: `centroid materialization: ${counts.companies} companies, ${counts.deals} deals, ${members} member utterances`,
    'median / p95': medP95(materializeStats),
    baseline: `the same aggregates, discarded ${medP95(aggregateStats)}`,
    ratio: ratio(materializeStats.medianMs, aggregateStats.medianMs),
    scaling: `${ms(materializeStats.medianMs / Math.max(1, counts.companies))} ms a company, ${ms((materializeStats.medianMs * 1000) / Math.max(1, members))} ms per 1,000 utterances`,
  });

  const centroids = await queryRows<{ id: string }>(
    db,
    sql`select entity_id as id from entity_centroids
        where workspace_id = ${workspaceId} and embedder = ${embedder} and entity_type = 'company' order by entity_id`,
  );
  const step = Math.max(1, Math.floor(centroids.length / FIND_SEEDS));
  const seeds = centroids.filter((_, i) => i % step === 0).slice(0, FIND_SEEDS);
  const nearestByHand = (seedId: string) =>
    queryRows<{ entity_id: string }>(
      db,
      sql`with seed as (
            select embedding from entity_centroids
            where workspace_id = ${workspaceId} and embedder = ${embedder} and entity_type = 'company' and entity_id = ${seedId})
          select c.entity_id, 1 - (c.embedding <=> s.embedding) as score
          from entity_centroids c, seed s
          where c.workspace_id = ${workspaceId} and c.embedder = ${embedder} and c.entity_type = 'company' and c.entity_id <> ${seedId}
          order by c.embedding <=> s.embedding, c.entity_id limit ${FIND_LIMIT}`,
    );
  const find = (seedId: string) =>
    corpus.post<FindResponse>('/lookalike', { entity_type: 'company', entity_id: seedId, limit: FIND_LIMIT });
  // Untimed check: the operation returns the hand scan's neighbours, in its order.
  for (const { id } of seeds) {
    const [answer, hand] = [await find(id), await nearestByHand(id)];
    const got = answer.matches.map((m) => m.entity_id).join(',');
    if (answer.available !== true || got !== hand.map((r) => r.entity_id).join(','))
      throw new Error(`lookalike for ${id}: available ${answer.available}, neighbours differ from the hand scan`);
  }
  // Each seed timed twice per side, alternating; the figure is the spread over seeds of their medians.
  const findSamples: number[] = [];
  const handSamples: number[] = [];
  for (const { id } of seeds) {
    const [f, h] = await sampleInterleaved([() => find(id), () => nearestByHand(id)], { rounds: 2, warmup: 1 });
    if (!f || !h) throw new Error('missing samples');
    findSamples.push(f.medianMs);
    handSamples.push(h.medianMs);
  }
  const findStats = latencyStats(findSamples);
  const handStats = latencyStats(handSamples);
  rows.push({
    what: `POST /lookalike, find ${FIND_LIMIT} among ${centroids.length} company centroids (${seeds.length} seeds)`,
    'median / p95': medP95(findStats),
    baseline: `hand nearest-centroid scan ${medP95(handStats)}`,
    ratio: ratio(findStats.medianMs, handStats.medianMs),
    scaling: '',
  });
  return {
    scale: corpus.scale,
    rows,
    materialize: { medianMs: materializeStats.medianMs, ...counts, members },
    find: { medianMs: findStats.medianMs, centroids: centroids.length },
  };
}

/** Each scale after the first beside the first: how the work grew against how the accounts grew. */
export function lookalikeScaling(figures: readonly LookalikeFigures[]): Row[] {
  const [first, ...rest] = figures;
  if (!first) return [];
  const times = (a: number, b: number) => `${(a / Math.max(1e-9, b)).toFixed(1)}x`;
  return rest.map((f) => ({
    scales: `${f.scale}x vs ${first.scale}x`,
    companies: `${f.materialize.companies} vs ${first.materialize.companies} (${times(f.materialize.companies, first.materialize.companies)})`,
    'member utterances': times(f.materialize.members, first.materialize.members),
    'materialization time': `${ms(f.materialize.medianMs)} vs ${ms(first.materialize.medianMs)} ms (${times(f.materialize.medianMs, first.materialize.medianMs)})`,
    'find time': `${ms(f.find.medianMs)} vs ${ms(first.find.medianMs)} ms (${times(f.find.medianMs, first.find.medianMs)})`,
  }));
}

// ---------------------------------------------------------------------------------------------
// Enrichment

interface Account extends Record<string, unknown> {
  id: string;
  domain: string;
  n: number;
}

/** The account (with a domain no other account shares) holding the most interactions, at most `atMost`. */
async function busiestAccount(db: Queryable, workspaceId: string, atMost: number): Promise<Account> {
  const [account] = await queryRows<Account>(
    db,
    sql`select a.id, a.domain, count(i.id)::int as n
        from accounts a join interactions i on i.account_id = a.id and i.workspace_id = a.workspace_id
        where a.workspace_id = ${workspaceId} and a.domain is not null
          and not exists (select 1 from accounts b where b.workspace_id = a.workspace_id and b.id <> a.id
                          and lower(b.domain) = lower(a.domain))
        group by a.id having count(i.id) <= ${atMost}
        order by count(i.id) desc, a.id limit 1`,
  );
  if (!account) throw new Error('no account with a domain of its own and interactions');
  return account;
}

const interactionsOf = (db: Queryable, workspaceId: string, accountId: string) =>
  count(
    db,
    sql`select count(*)::int as n from interactions where workspace_id = ${workspaceId} and account_id = ${accountId}`,
  );

/** POST /enrich/company for one account beside the bare read of its candidate utterances. */
async function enrichFigure(corpus: BenchCorpus, account: Account, label: string): Promise<Row> {
  const { db, workspaceId, services } = corpus;
  const interactions = await interactionsOf(db, workspaceId, account.id);
  const customerUtterances = await count(
    db,
    sql`select count(*)::int as n from utterances u join interactions i on i.id = u.interaction_id
        where u.workspace_id = ${workspaceId} and i.account_id = ${account.id} and u.side = 'external'`,
  );
  const enrich = () => corpus.post<EnrichResponse>('/enrich/company', { domain: account.domain });
  const answer = await enrich();
  if (answer.tier !== 'first_party' || answer.evidence?.matched_count !== customerUtterances)
    throw new Error(
      `enrich ${account.domain}: tier ${answer.tier}, matched_count ${answer.evidence?.matched_count} where SQL counts ${customerUtterances}`,
    );
  const candidates = () =>
    queryRows(
      db,
      sql`select u.id, u.text, v.embedding
          from utterances u
          join interactions i on i.id = u.interaction_id
          join utterance_vectors v on v.workspace_id = u.workspace_id and v.embedder = u.embedder and v.text_hash = u.text_hash
          where u.workspace_id = ${workspaceId} and u.side = 'external' and u.embedder = ${services.embedder.id}
            and i.account_id = ${account.id}
          order by u.occurred_at desc, u.id limit ${CANDIDATES}`,
    );
  const [enrichStats, bareStats] = await sampleInterleaved([enrich, candidates], {
    rounds: corpus.scale >= 10 ? 7 : 11,
  });
  if (!enrichStats || !bareStats) throw new Error('missing samples');
  return {
    what: `POST /enrich/company, ${label}: ${interactions} interactions, ${customerUtterances} customer utterances`,
    'median / p95': medP95(enrichStats),
    baseline: `bare read of its newest ${CANDIDATES} customer utterances with vectors ${medP95(bareStats)}`,
    ratio: ratio(enrichStats.medianMs, bareStats.medianMs),
    scaling: '',
  };
}

export async function benchEnrich(corpus: BenchCorpus): Promise<Row[]> {
  const { db, workspaceId, services } = corpus;
  const rows: Row[] = [];
  const natural = await busiestAccount(db, workspaceId, Number.MAX_SAFE_INTEGER);
  rows.push(await enrichFigure(corpus, natural, 'busiest account as loaded'));

  // Make one account hold exactly 1,000 interactions, remembering where the moved ones belonged.
  const links = async () =>
    (
      await queryRows<{ digest: string }>(
        db,
        sql`select md5(string_agg(id::text || ':' || coalesce(account_id::text, ''), ',' order by id)) as digest
            from interactions where workspace_id = ${workspaceId}`,
      )
    )[0]?.digest;
  const linksBefore = await links();
  const big = await busiestAccount(db, workspaceId, BIG_ACCOUNT_INTERACTIONS);
  const moved = await queryRows<{ id: string; account_id: string | null }>(
    db,
    sql`select id, account_id from interactions
        where workspace_id = ${workspaceId} and account_id is distinct from ${big.id}
        order by id limit ${BIG_ACCOUNT_INTERACTIONS - big.n}`,
  );
  if (moved.length !== BIG_ACCOUNT_INTERACTIONS - big.n)
    throw new Error(`the workspace holds too few interactions to give one account ${BIG_ACCOUNT_INTERACTIONS}`);
  const ids = (list: readonly { id: string }[]) =>
    sql.join(
      list.map((r) => sql`${r.id}::uuid`),
      sql`, `,
    );
  try {
    if (moved.length > 0)
      await db.execute(sql`update interactions set account_id = ${big.id} where id in (${ids(moved)})`);
    const held = await interactionsOf(db, workspaceId, big.id);
    if (held !== BIG_ACCOUNT_INTERACTIONS) throw new Error(`the account holds ${held} interactions, not 1,000`);
    rows.push(await enrichFigure(corpus, big, `account made to hold ${BIG_ACCOUNT_INTERACTIONS}`));

    const subject = companySubject({ domain: big.domain });
    const signal = new AbortController().signal;
    let verified = 0;
    const full = async () => {
      const brief = await buildFullBrief(services, workspaceId, subject, 10, signal);
      verified = brief.grounding.quotes.verified;
    };
    const [fullStats, evidenceStats] = await sampleInterleaved(
      [full, () => readEvidence(services, workspaceId, subject, 10)],
      { rounds: corpus.scale >= 10 ? 3 : 5, warmup: 1 },
    );
    if (!fullStats || !evidenceStats) throw new Error('missing samples');
    rows.push({
      what: `full brief built inline, the same account (external search unconfigured; ${verified} quotes verified)`,
      'median / p95': medP95(fullStats),
      baseline: `its first-party evidence read alone ${medP95(evidenceStats)}`,
      ratio: ratio(fullStats.medianMs, evidenceStats.medianMs),
      scaling: '',
    });
  } finally {
    // Give the moved interactions back to their accounts (null included).
    for (const owner of new Set(moved.map((r) => r.account_id))) {
      const back = moved.filter((r) => r.account_id === owner);
      await db.execute(sql`update interactions set account_id = ${owner} where id in (${ids(back)})`);
    }
  }
  if ((await links()) !== linksBefore) throw new Error('the interactions were not linked back to their accounts');
  return rows;
}

export const lookalikeTitle = (corpus: BenchCorpus) =>
  `Lookalike at ${corpus.scale}x: centroid materialization and find, each beside its bare SQL, ms median / p95`;
export const lookalikeScalingTitle = 'Lookalike: how materialization and find grew with the accounts (medians)';
export const enrichTitle = (corpus: BenchCorpus) =>
  `Enrichment at ${corpus.scale}x: the first-party tier and the full brief, each beside its bare read, ms median / p95`;

if (import.meta.url === `file://${process.argv[1]}`) {
  const scales = process.argv
    .slice(2)
    .map(Number)
    .filter((n) => n > 0);
  const figures: LookalikeFigures[] = [];
  for (const scale of scales.length > 0 ? scales : [1, 10]) {
    const corpus = await openBenchCorpus(scale);
    try {
      const lookalike = await benchLookalike(corpus);
      figures.push(lookalike);
      printTable(lookalikeTitle(corpus), lookalike.rows);
      printTable(enrichTitle(corpus), await benchEnrich(corpus));
    } finally {
      await corpus.close();
    }
  }
  if (figures.length > 1) printTable(lookalikeScalingTitle, lookalikeScaling(figures));
  process.exit(0);
}
