/**
 * Lookalike and enrichment figures (issue 26 item 9), through the app in-process on PGlite:
 *   - the centroid materialization (one transaction per workspace) and `POST /lookalike` (find, 10
 *     neighbours) over every company at 1x and 10x, beside the bare SQL read of the seed's centroid;
 *   - `POST /enrich/company` for an account holding 1,000 interactions (first-party tier: the bounded
 *     read and the aggregates) and the full brief built inline (unconfigured external search, so the
 *     evidence read and the grounding verifier are what is timed), beside a bare count of its utterances.
 * Usage: npx tsx bench/lookalike-enrich.ts [scales...]   (default: 1 10)
 */
import { sql } from 'drizzle-orm';
import { buildFullBrief } from '../functions/enrich/build.js';
import { companySubject } from '../functions/enrich/subject.js';
import { API_PREFIX } from '../functions/http/env.js';
import { materializeCentroids } from '../functions/lookalike/centroids.js';
import { queryRows } from '../platform/db/port.js';
import { openBenchCorpus } from './corpus-db.js';
import { latencyStats, medP95, ms, ratio, timed } from './latency.js';
import { printTable } from './report.js';

const scales = process.argv
  .slice(2)
  .map(Number)
  .filter((n) => n > 0);
const rows: Record<string, string | number>[] = [];

for (const scale of scales.length > 0 ? scales : [1, 10]) {
  const corpus = await openBenchCorpus(scale);
  try {
    const { db, workspaceId, services } = corpus;
    const call = async (path: string, body: unknown) => {
      const res = await corpus.app.request(`http://bench.local${API_PREFIX}${path}`, {
        method: 'POST',
        headers: { 'x-api-key': corpus.apiKey, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      if (res.status !== 200) throw new Error(`${path} answered ${res.status}: ${await res.text()}`);
      return ((await res.json()) as { data: Record<string, unknown> }).data;
    };

    const materialize = await timed(() =>
      db.transaction((tx) => materializeCentroids(tx, workspaceId, services.embedder.id, new Date())),
    );
    const seeds = await queryRows<{ id: string }>(
      db,
      sql`select entity_id as id from entity_centroids where workspace_id = ${workspaceId} and entity_type = 'company' order by entity_id`,
    );
    const findMs: number[] = [];
    const bareMs: number[] = [];
    for (const round of [0, 1]) {
      for (const { id } of seeds) {
        const found = await timed(() => call('/lookalike', { entity_type: 'company', entity_id: id, limit: 10 }));
        if (found.value.available !== true) throw new Error(`no centroid for ${id}`);
        const bare = await timed(() =>
          queryRows(
            db,
            sql`select embedding from entity_centroids where workspace_id = ${workspaceId} and entity_id = ${id}`,
          ),
        );
        if (round === 1) {
          findMs.push(found.ms);
          bareMs.push(bare.ms);
        }
      }
    }
    const find = latencyStats(findMs);
    const bare = latencyStats(bareMs);
    rows.push({
      scale: `${scale}x`,
      what: `lookalike find over ${seeds.length} companies (materialization ${ms(materialize.ms)}: ${materialize.value.companies} companies, ${materialize.value.deals} deals)`,
      'median / p95': medP95(find),
      baseline: `bare centroid read ${medP95(bare)} (${ratio(find.medianMs, bare.medianMs)})`,
    });

    // One account holding 1,000 interactions: the busiest account takes over interactions until it has them.
    const [busiest] = await queryRows<{ id: string; domain: string; n: number }>(
      db,
      sql`select a.id, a.domain, count(i.id)::int as n from accounts a join interactions i on i.account_id = a.id
          where a.workspace_id = ${workspaceId} and a.domain is not null group by a.id order by count(i.id) desc, a.id limit 1`,
    );
    const need = Math.max(0, 1000 - busiest!.n);
    await db.execute(
      sql`update interactions set account_id = ${busiest!.id} where id in (
            select id from interactions where workspace_id = ${workspaceId} and account_id is distinct from ${busiest!.id}
            order by id limit ${need})`,
    );
    const [held] = await queryRows<{ n: number }>(
      db,
      sql`select count(*)::int as n from interactions where account_id = ${busiest!.id}`,
    );
    const enrichMs: number[] = [];
    const countMs: number[] = [];
    let matched = 0;
    for (let i = 0; i < 7; i++) {
      const res = await timed(() => call('/enrich/company', { domain: busiest!.domain }));
      matched = Number((res.value.evidence as { matched_count: number }).matched_count);
      const count = await timed(() =>
        queryRows(
          db,
          sql`select count(*) from utterances u join interactions i on i.id = u.interaction_id
              where i.account_id = ${busiest!.id} and u.side = 'external'`,
        ),
      );
      if (i > 1) {
        enrichMs.push(res.ms);
        countMs.push(count.ms);
      }
    }
    const full = await timed(() =>
      buildFullBrief(
        services,
        workspaceId,
        companySubject({ domain: busiest!.domain }),
        10,
        new AbortController().signal,
      ),
    );
    const enrich = latencyStats(enrichMs);
    rows.push({
      scale: `${scale}x`,
      what: `enrich company, ${held!.n} interactions, ${matched} customer utterances: first-party tier (full brief inline ${ms(full.ms)}, ${full.value.grounding.quotes.verified} quotes verified)`,
      'median / p95': medP95(enrich),
      baseline: `bare count of its utterances ${medP95(latencyStats(countMs))} (${ratio(enrich.medianMs, latencyStats(countMs).medianMs)})`,
    });
  } finally {
    await corpus.close();
  }
}

printTable('Lookalike and enrichment', rows);
