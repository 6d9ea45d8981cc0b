import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_PREFIX } from '../../functions/http/env.js';
import { ManualClock } from '../../platform/clock.js';
import { queryRows } from '../../platform/db/port.js';
import { newId } from '../../platform/ids.js';
import { accounts, deals, interactions } from '../../schema/index.js';
import type { DealStage } from '../../schema/warehouse-deals.js';
import { createHarness, openTestDatabase, type Harness, type SeededWorkspace } from '../support/harness.js';
import type { PgliteHandle } from '../../platform/db/pglite.js';

/**
 * POST /simulate behind SIMULATE_ENABLED: absent (404, not in OpenAPI, MCP or agents' tools) while
 * off; when on, baselines and projections checked against independent SQL over the same deals.
 */

const NOW = new Date('2026-03-10T12:00:00.000Z');
const DAY_MS = 86_400_000;
const clock = new ManualClock(NOW.toISOString());
let database: PgliteHandle;
let off: Harness;
let on: Harness;
let ws: SeededWorkspace;
let other: SeededWorkspace;
let emeaAccount: string;

const daysAgo = (days: number) => new Date(NOW.getTime() - days * DAY_MS);
const dateOf = (d: Date) => d.toISOString().slice(0, 10);

interface DealSeed {
  stage: DealStage;
  amount: number | null;
  createdDaysAgo: number;
  /** Days after creation; null: no close date. */
  closesAfter: number | null;
  account: string | null;
}

async function seedDeals(workspaceId: string, seeds: readonly DealSeed[]): Promise<string[]> {
  const ids = seeds.map(() => newId());
  await database.db.insert(deals).values(
    seeds.map((s, i) => {
      const created = daysAgo(s.createdDaysAgo);
      return {
        id: ids[i] as string,
        workspaceId,
        accountId: s.account,
        name: `Deal ${i} ${s.stage}`,
        stage: s.stage,
        amount: s.amount,
        closeDate: s.closesAfter === null ? null : dateOf(new Date(created.getTime() + s.closesAfter * DAY_MS)),
        isClosed: s.stage === 'closed_won' || s.stage === 'closed_lost',
        isWon: s.stage === 'closed_won',
        occurredAt: created,
        updatedAt: created,
      };
    }),
  );
  return ids;
}

beforeAll(async () => {
  database = await openTestDatabase();
  off = await createHarness({ database, clock });
  on = await createHarness({ database, clock, env: { SIMULATE_ENABLED: '1' } });
  ws = await on.seedWorkspace('Simulate workspace');
  other = await on.seedWorkspace('Simulate other workspace');
  emeaAccount = newId();
  const naAccount = newId();
  await database.db.insert(accounts).values([
    { id: emeaAccount, workspaceId: ws.id, name: 'Emea Co', region: 'EMEA' },
    { id: naAccount, workspaceId: ws.id, name: 'Na Co', region: 'NA' },
  ]);
  const stages: DealStage[] = ['closed_won', 'closed_lost', 'negotiation', 'proposal', 'closed_won', 'discovery'];
  const seeds: DealSeed[] = [];
  for (let i = 0; i < 24; i++) {
    const stage = stages[i % stages.length] as DealStage;
    seeds.push({
      stage,
      amount: i % 5 === 4 ? null : 1000 + 250 * i,
      createdDaysAgo: 5 + 3 * i,
      closesAfter: i % 7 === 6 ? null : 10 + 2 * i,
      account: i % 2 === 0 ? emeaAccount : naAccount,
    });
  }
  // Outside the default 90-day horizon, inside 365.
  seeds.push({ stage: 'closed_won', amount: 99_000, createdDaysAgo: 200, closesAfter: 30, account: emeaAccount });
  const dealIds = await seedDeals(ws.id, seeds);
  // Interactions: three on the first deal, one on the second, one on no deal, one excluded from search.
  const at = daysAgo(3);
  const interaction = (dealId: string | null) => ({
    id: newId(),
    workspaceId: ws.id,
    kind: 'call' as const,
    title: 'Call',
    source: 'gong',
    occurredAt: at,
    dealId,
  });
  await database.db
    .insert(interactions)
    .values([
      interaction(dealIds[0] as string),
      interaction(dealIds[0] as string),
      interaction(dealIds[0] as string),
      interaction(dealIds[1] as string),
      interaction(null),
    ]);
  // Another tenant's deals must never be counted.
  await seedDeals(
    other.id,
    Array.from({ length: 6 }, () => ({
      stage: 'closed_won' as const,
      amount: 5_000_000,
      createdDaysAgo: 10,
      closesAfter: 5,
      account: null,
    })),
  );
}, 120_000);
afterAll(async () => {
  await off.close();
  await on.close();
  await database.close();
});

const simulate = (body: Record<string, unknown>, h: Harness = on, key = ws.viewer.key) =>
  h.request('POST', '/simulate', { key, body });
const scaleAmount = { type: 'scale', field: 'amount', factor: 1 };

async function sqlRow<T extends Record<string, unknown>>(query: ReturnType<typeof sql>): Promise<T> {
  return (await queryRows<T>(database.db, query))[0] as T;
}

/** The four metrics measured by SQL over this workspace's deals created within the horizon. */
async function baselineBySql(horizonDays: number, predicate = sql`true`) {
  const since = daysAgo(horizonDays);
  return sqlRow<{ count: number; win_rate: string | null; cycle_days: string | null; sum_deal_amount: string | null }>(
    sql`select count(*)::int as count,
        avg(case when d.is_won then 1.0 else 0.0 end) filter (where d.is_closed) as win_rate,
        avg(extract(epoch from ((d.close_date::timestamp at time zone 'UTC') - d.occurred_at)) / 86400)
          filter (where d.is_closed and d.close_date is not null) as cycle_days,
        sum(d.amount) as sum_deal_amount
      from deals d left join accounts a on a.id = d.account_id
      where d.workspace_id = ${ws.id} and d.occurred_at > ${since} and ${predicate}`,
  );
}

const mcp = (h: Harness, method: string, params: Record<string, unknown>) =>
  h.request('POST', '/mcp', {
    key: ws.viewer.key,
    headers: { accept: 'application/json, text/event-stream' },
    body: { jsonrpc: '2.0', id: 1, method, params },
  });

describe('the SIMULATE_ENABLED switch', () => {
  it('off (the default): 404, absent from /openapi.json, MCP tools/list and the agents’ tools', async () => {
    const res = await simulate({ scenario: 'x', assumptions: [scaleAmount] }, off);
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('not_found');

    const doc = (await (await off.fetch(`${API_PREFIX}/openapi.json`)).json()) as { paths: Record<string, unknown> };
    expect(Object.keys(doc.paths)).not.toContain('/simulate');
    expect(Object.keys(doc.paths)).toContain('/search/query');

    const tools = await mcp(off, 'tools/list', {});
    const names = (tools.body.result.tools as { name: string }[]).map((t) => t.name);
    expect(names).toContain('search');
    expect(names).not.toContain('simulate');
    const call = await mcp(off, 'tools/call', { name: 'simulate', arguments: { action: 'run' } });
    expect(call.body.result?.isError ?? Boolean(call.body.error)).toBe(true);

    expect(off.registry.published().map((op) => op.id)).not.toContain('simulate.run');
  });

  it('on: served, labelled coming soon in /openapi.json, a tool in MCP and for agents', async () => {
    const doc = (await (await on.fetch(`${API_PREFIX}/openapi.json`)).json()) as {
      paths: Record<string, { post?: { 'x-stability'?: string; description?: string } }>;
    };
    const post = doc.paths['/simulate']?.post;
    expect(post?.['x-stability']).toBe('coming_soon');
    expect(post?.description).toContain('cohort_too_thin');
    expect(post?.description).toContain('relative standard error');

    const tools = await mcp(on, 'tools/list', {});
    expect((tools.body.result.tools as { name: string }[]).map((t) => t.name)).toContain('simulate');
    const call = await mcp(on, 'tools/call', {
      name: 'simulate',
      arguments: { action: 'run', scenario: 'via MCP', assumptions: [scaleAmount] },
    });
    expect(call.body.result.isError ?? false).toBe(false);
    expect(call.body.result.structuredContent).toMatchObject({ success: true, scenario: 'via MCP' });

    expect(on.registry.published().map((op) => op.id)).toContain('simulate.run');
  });
});

describe('POST /simulate', () => {
  it('measures the baseline on the cohort within the horizon, as SQL does, and leaves it unchanged under factor 1', async () => {
    const res = await simulate({
      scenario: 'Baseline',
      assumptions: [scaleAmount],
      metrics: ['count', 'win_rate', 'cycle_days', 'sum_deal_amount'],
    });
    expect(res.status, res.text).toBe(200);
    const data = res.body.data;
    const expected = await baselineBySql(90);
    expect(data.surface).toBe('deals');
    expect(data.horizon_days).toBe(90);
    expect(data.evidence.cohort_size).toBe(expected.count);
    expect(data.projection.baseline.count).toBe(expected.count);
    expect(data.projection.baseline.win_rate).toBeCloseTo(Number(expected.win_rate), 9);
    expect(data.projection.baseline.cycle_days).toBeCloseTo(Number(expected.cycle_days), 6);
    expect(data.projection.baseline.sum_deal_amount).toBeCloseTo(Number(expected.sum_deal_amount), 6);
    expect(data.projection.projected).toEqual(data.projection.baseline);
    expect(data.projection.delta).toEqual({ count: 0, win_rate: 0, cycle_days: 0, sum_deal_amount: 0 });
    expect(data.evidence.rows_affected).toBe(0);
    expect(data.reason).toBeNull();
    expect(data.evidence.compiled.sql).toMatch(/^SELECT .* FROM deals WHERE occurred_at > '2025-12-10T12:00:00.000Z'$/);
    expect(data.freshness.total_rows).toBe(25);
    expect(data.timing.total_ms).toBeGreaterThanOrEqual(0);

    // The horizon bounds the period: 365 days takes in the old deal.
    const year = await simulate({ scenario: 'Year', assumptions: [scaleAmount], horizon_days: 365 });
    expect(year.body.data.projection.baseline.count).toBe((await baselineBySql(365)).count);
    expect(year.body.data.projection.baseline.count).toBe(expected.count + 1);
  });

  it("selects the cohort with the search lane's predicates, joined fields included", async () => {
    const res = await simulate({
      scenario: 'EMEA only',
      cohort: { filters: [{ field: 'account_region', op: 'eq', value: 'EMEA' }] },
      assumptions: [scaleAmount],
      metrics: ['count', 'win_rate', 'sum_deal_amount'],
    });
    expect(res.status, res.text).toBe(200);
    const expected = await baselineBySql(90, sql`a.region = 'EMEA'`);
    expect(res.body.data.projection.baseline.count).toBe(expected.count);
    expect(res.body.data.projection.baseline.win_rate).toBeCloseTo(Number(expected.win_rate), 9);
    expect(res.body.data.projection.baseline.sum_deal_amount).toBeCloseTo(Number(expected.sum_deal_amount), 6);
    expect(res.body.data.evidence.compiled.sql).toContain("account_region = 'EMEA' AND occurred_at >");
  });

  it('applies the assumptions in order, each on what the previous left, and projects as SQL does', async () => {
    const assumptions = [
      { type: 'scale', field: 'amount', factor: 1.1 },
      {
        type: 'set',
        field: 'stage',
        from: 'negotiation',
        to: 'closed_won',
        where: [{ field: 'account_region', op: 'eq', value: 'EMEA' }],
      },
      { type: 'shift', field: 'close_date', days: -7 },
    ];
    const res = await simulate({
      scenario: 'Push EMEA negotiations over the line',
      assumptions,
      metrics: ['win_rate', 'cycle_days', 'sum_deal_amount', 'count'],
    });
    expect(res.status, res.text).toBe(200);
    const data = res.body.data;
    const since = daysAgo(90);
    const moved = sql`(d.stage = 'negotiation' and a.region = 'EMEA')`;
    const projected = await sqlRow<{
      win_rate: string;
      cycle_days: string;
      sum_deal_amount: string;
      moved: number;
      amounts: number;
      dated: number;
    }>(sql`select
        avg(case when d.is_won or ${moved} then 1.0 else 0.0 end) filter (where d.is_closed or ${moved}) as win_rate,
        avg(extract(epoch from ((greatest(d.close_date - 7, (d.occurred_at at time zone 'UTC')::date)::timestamp at time zone 'UTC') - d.occurred_at)) / 86400)
          filter (where (d.is_closed or ${moved}) and d.close_date is not null) as cycle_days,
        sum(d.amount * 1.1) as sum_deal_amount,
        count(*) filter (where ${moved})::int as moved,
        count(d.amount)::int as amounts,
        count(*) filter (where d.close_date is not null and d.close_date > (d.occurred_at at time zone 'UTC')::date)::int as dated
      from deals d left join accounts a on a.id = d.account_id
      where d.workspace_id = ${ws.id} and d.occurred_at > ${since}`);
    expect(projected.moved).toBeGreaterThan(0);
    expect(data.projection.projected.win_rate).toBeCloseTo(Number(projected.win_rate), 9);
    expect(data.projection.projected.cycle_days).toBeCloseTo(Number(projected.cycle_days), 6);
    expect(data.projection.projected.sum_deal_amount).toBeCloseTo(Number(projected.sum_deal_amount), 6);
    expect(data.projection.delta.win_rate).toBeCloseTo(
      data.projection.projected.win_rate - data.projection.baseline.win_rate,
      12,
    );
    expect(data.projection.delta.count).toBe(0);
    expect(
      data.assumptions_applied.map((a: { type: string; rows_affected: number }) => [a.type, a.rows_affected]),
    ).toEqual([
      ['scale', projected.amounts],
      ['set', projected.moved],
      ['shift', projected.dated],
    ]);
    expect(data.evidence.sample.length).toBe(5);
    expect(data.evidence.sample[0].before).not.toEqual(data.evidence.sample[0].after);
    expect(data.evidence.compiled.sql).toContain("(account_region = 'EMEA') AS where_1");

    // Order matters: negotiation → proposal, then proposal → closed_won moves both; the reverse moves only proposals.
    const counts = await sqlRow<{ negotiation: number; proposal: number }>(
      sql`select count(*) filter (where stage = 'negotiation')::int as negotiation, count(*) filter (where stage = 'proposal')::int as proposal
        from deals where workspace_id = ${ws.id} and occurred_at > ${since}`,
    );
    const forward = await simulate({
      scenario: 'Forward',
      assumptions: [
        { type: 'set', field: 'stage', from: 'negotiation', to: 'proposal' },
        { type: 'set', field: 'stage', from: 'proposal', to: 'closed_won' },
      ],
    });
    const backward = await simulate({
      scenario: 'Backward',
      assumptions: [
        { type: 'set', field: 'stage', from: 'proposal', to: 'closed_won' },
        { type: 'set', field: 'stage', from: 'negotiation', to: 'proposal' },
      ],
    });
    expect(forward.body.data.assumptions_applied.map((a: { rows_affected: number }) => a.rows_affected)).toEqual([
      counts.negotiation,
      counts.negotiation + counts.proposal,
    ]);
    expect(backward.body.data.assumptions_applied.map((a: { rows_affected: number }) => a.rows_affected)).toEqual([
      counts.proposal,
      counts.negotiation,
    ]);
  });

  it('withholds the projection of a thin cohort: null with reason cohort_too_thin at 200', async () => {
    const res = await simulate({
      scenario: 'Too few',
      cohort: { filters: [{ field: 'stage', op: 'eq', value: 'discovery' }] },
      assumptions: [scaleAmount],
    });
    expect(res.status, res.text).toBe(200);
    const expected = await baselineBySql(90, sql`d.stage = 'discovery'`);
    expect(expected.count).toBeGreaterThan(0);
    expect(expected.count).toBeLessThan(5);
    expect(res.body.data).toMatchObject({
      success: true,
      projection: null,
      reason: 'cohort_too_thin',
      confidence: 'low',
      evidence: { cohort_size: expected.count, min_cohort_size: 5 },
    });
  });

  it('rates confidence from cohort size and spread', async () => {
    // count is exact: 24 deals (≥ 10, error 0) is medium; with the old deal in 365 days still 25 (< 30): medium.
    const count = await simulate({ scenario: 'Count', assumptions: [scaleAmount] });
    expect(count.body.data.evidence.cohort_size).toBe(24);
    expect(count.body.data.confidence).toBe('medium');
    // win_rate over the closed deals: p and n from SQL give the relative error, hence the label.
    const expected = await sqlRow<{ closed: number; won: number }>(
      sql`select count(*) filter (where is_closed)::int as closed, count(*) filter (where is_won)::int as won
        from deals where workspace_id = ${ws.id} and occurred_at > ${daysAgo(90)}`,
    );
    const p = expected.won / expected.closed;
    const error = Math.sqrt((p * (1 - p)) / expected.closed) / p;
    const res = await simulate({ scenario: 'Win rate', assumptions: [scaleAmount], metrics: ['win_rate'] });
    expect(res.body.data.confidence).toBe(error <= 0.25 ? 'medium' : 'low');
  });

  it('on interactions: counts the interactions and measures each of their deals once', async () => {
    const res = await simulate({
      scenario: 'Interactions',
      surface: 'interactions',
      assumptions: [
        {
          type: 'set',
          field: 'stage',
          to: 'closed_lost',
          where: [{ field: 'deal_stage', op: 'eq', value: 'closed_won' }],
        },
      ],
      metrics: ['count', 'win_rate'],
    });
    expect(res.status, res.text).toBe(200);
    const data = res.body.data;
    const rows = await sqlRow<{ interactions: number; deals: number }>(
      sql`select count(*)::int as interactions, count(distinct deal_id)::int as deals
        from interactions where workspace_id = ${ws.id} and occurred_at > ${daysAgo(90)}`,
    );
    expect(data.evidence.cohort_size).toBe(rows.interactions);
    expect(data.evidence.deal_count).toBe(rows.deals);
    // Two deals are fewer than five: the deal metric's projection is withheld.
    expect(data).toMatchObject({ projection: null, reason: 'cohort_too_thin' });
    const countOnly = await simulate({
      scenario: 'Interactions count',
      surface: 'interactions',
      assumptions: [scaleAmount],
    });
    expect(countOnly.body.data.projection.baseline).toEqual({ count: rows.interactions });
    expect(countOnly.body.data.evidence.compiled.sql).toMatch(/FROM interactions WHERE .* GROUP BY deal_id$/);
  });

  it('never reads another workspace', async () => {
    const res = await simulate({ scenario: 'Tenant', assumptions: [scaleAmount], metrics: ['sum_deal_amount'] });
    expect(res.body.data.projection.baseline.sum_deal_amount).toBeLessThan(5_000_000);
    const theirs = await simulate({ scenario: 'Theirs', assumptions: [scaleAmount] }, on, other.viewer.key);
    expect(theirs.body.data.evidence.cohort_size).toBe(6);
  });

  it('refuses every limit with 400 invalid_argument naming the field', async () => {
    const fieldOf = async (body: Record<string, unknown>) => {
      const res = await simulate({ scenario: 'Limits', assumptions: [scaleAmount], ...body });
      expect(res.status, res.text).toBe(400);
      expect(res.body.error.code).toBe('invalid_argument');
      return (res.body.error.details.fields as { field: string }[]).map((f) => f.field);
    };
    expect(await fieldOf({ assumptions: Array.from({ length: 9 }, () => scaleAmount) })).toContain('assumptions');
    expect(await fieldOf({ metrics: Array.from({ length: 9 }, () => 'count') })).toContain('metrics');
    expect(await fieldOf({ horizon_days: 366 })).toContain('horizon_days');
    expect(await fieldOf({ metrics: ['revenue'] })).toContain('metrics.0');
    expect(await fieldOf({ metrics: ['count', 'count'] })).toContain('metrics.1');
    expect(await fieldOf({ scenario: 'x'.repeat(501) })).toContain('scenario');
    expect(await fieldOf({ assumptions: [{ type: 'scale', field: 'stage', factor: 2 }] })).toContain(
      'assumptions.0.field',
    );
    expect(await fieldOf({ cohort: { filters: [{ field: 'colour', op: 'eq', value: 'red' }] } })).toContain(
      'cohort.filters.0.field',
    );
    expect(
      await fieldOf({
        assumptions: [
          scaleAmount,
          { type: 'set', field: 'stage', to: 'closed_won', where: [{ field: 'amount', op: 'eq', value: 'lots' }] },
        ],
      }),
    ).toContain('assumptions.1.where.0.value');
    // Exactly at the limits is accepted.
    const atLimits = await simulate({
      scenario: 'x'.repeat(500),
      assumptions: Array.from({ length: 8 }, () => scaleAmount),
      metrics: ['count', 'win_rate', 'cycle_days', 'sum_deal_amount'],
      horizon_days: 365,
    });
    expect(atLimits.status, atLimits.text).toBe(200);
  });
});
