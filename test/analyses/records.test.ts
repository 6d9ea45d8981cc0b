import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOOL_RESULT_BUDGET } from '../../functions/agents/transcript.js';
import type { AnalysisOutput } from '../../functions/analyses/analysis.js';
import { queryRows } from '../../platform/db/port.js';
import { CORPUS_WORKSPACE_ID } from '../support/corpus-fixture.js';
import { createHarness, openCorpusDatabase, type Harness, type SeededWorkspace } from '../support/harness.js';
import { expectInvalid, mcpAnalyze, verifyAsReturned } from './analysis-checks.js';

/**
 * The records analysis over the demo corpus: weighted pipeline, win rate, counts, totals, averages and
 * lists of deals, and conversations counted by kind, each figure checked against independent SQL over
 * the tables; its blocks cite the searches they came from and the verifier re-runs them; another
 * workspace reads none of these rows.
 */

let h: Harness;
let ws: SeededWorkspace;
let other: SeededWorkspace;

const post = (body: unknown, key = ws.viewer.key) =>
  h.request<{ data: AnalysisOutput }>('POST', '/analyses/records', { key, body });

const rowsSql = <T extends Record<string, unknown>>(text: string) => queryRows<T>(h.database.db, sql.raw(text));
const W = `workspace_id = '${CORPUS_WORKSPACE_ID}'`;
const Q4 = { from: '2026-10-01', to: '2027-01-01' };

type Row = Record<string, unknown>;
const tableOf = (out: AnalysisOutput, title: string) => {
  const b = out.blocks.find((x) => x.kind === 'table' && x.title === title);
  return b?.kind === 'table' ? b : null;
};
const metricOf = (out: AnalysisOutput, label: string) => {
  const b = out.blocks.find((x) => x.kind === 'metric' && x.label === label);
  return b?.kind === 'metric' ? Number(b.value) : null;
};

beforeAll(async () => {
  h = await createHarness({ database: await openCorpusDatabase() });
  ws = await h.corpusWorkspace();
  other = await h.seedWorkspace('Records, other tenant');
}, 120_000);
afterAll(async () => {
  await h.close();
  await h.database.close();
});

describe('POST /analyses/records', () => {
  it('weighs the open pipeline closing in a period by owner (amount × probability), as independent SQL does', async () => {
    const truth = await rowsSql<{ owner_email: string; weighted: number; amount: number; deals: number }>(`
      select owner_email, sum(amount * probability / 100.0)::float8 as weighted, sum(amount)::float8 as amount, count(*)::int as deals
      from deals where ${W} and not is_closed and close_date >= '${Q4.from}' and close_date < '${Q4.to}'
      group by 1 order by 2 desc nulls last`);
    expect(truth.length).toBeGreaterThan(2);
    const res = await post({ measure: 'weighted_pipeline', group_by: 'owner_email', period: Q4 });
    expect(res.status).toBe(200);
    const out = res.body.data;
    expect(out.analysis).toBe('records');
    const total = out.results.totals![0]!;
    expect(Number(total.count)).toBe(truth.reduce((s, t) => s + t.deals, 0));
    expect(Number(total.sum_weighted_amount)).toBeCloseTo(
      truth.reduce((s, t) => s + (t.weighted ?? 0), 0),
      2,
    );
    const byOwner = new Map(tableOf(out, 'Weighted pipeline by owner')!.data.map((g) => [g.owner_email, g]));
    for (const t of truth) {
      expect(Number(byOwner.get(t.owner_email)!.sum_weighted_amount)).toBeCloseTo(t.weighted ?? 0, 2);
      expect(Number(byOwner.get(t.owner_email)!.count)).toBe(t.deals);
    }
    expect(out.read_as).toContain('from 2026-10-01, before 2027-01-01');
    expect(out.summary[0]).toMatch(/^Weighted pipeline: \*\*\$/);
    // Every block cites the search its cells came from, bounded by the period asked.
    const cited = tableOf(out, 'Weighted pipeline by owner')!.query as { filters: Row[] };
    expect(cited.filters).toEqual(
      expect.arrayContaining([
        { field: 'close_date', op: 'gte', value: Q4.from },
        { field: 'close_date', op: 'lt', value: Q4.to },
        { field: 'is_closed', op: 'eq', value: false },
      ]),
    );
  });

  it('gives the win rate as won over closed deals, overall and by owner', async () => {
    const [all] = await rowsSql<{ closed: number; rate: number }>(`
      select count(*)::int as closed, round(100.0 * avg(is_won::int), 1)::float8 as rate from deals where ${W} and is_closed`);
    const byOwner = await rowsSql<{ owner_email: string; rate: number; closed: number }>(`
      select owner_email, round(100.0 * avg(is_won::int), 1)::float8 as rate, count(*)::int as closed
      from deals where ${W} and is_closed group by 1`);
    const out = (
      await post({ measure: 'win_rate', group_by: 'owner_email', order: { field: 'share_is_won', dir: 'desc' } })
    ).body.data;
    expect(metricOf(out, 'Win rate (%)')).toBe(all!.rate);
    expect(metricOf(out, 'Closed deals')).toBe(all!.closed);
    const groups = tableOf(out, 'Win rate by owner')!.data;
    expect(groups.map((g) => Number(g.share_is_won))).toEqual(
      [...groups.map((g) => Number(g.share_is_won))].sort((a, b) => b - a),
    );
    for (const t of byOwner) {
      const got = groups.find((g) => g.owner_email === t.owner_email)!;
      expect([Number(got.share_is_won), Number(got.count)]).toEqual([t.rate, t.closed]);
    }
    expect(out.summary.join('\n')).toContain(`of the **${all!.closed}** closed deals were won`);
  });

  it("counts, totals, averages and lists one owner's open deals in a stage, biggest first", async () => {
    const [owner] = await rowsSql<{ owner_email: string }>(`
      select owner_email from deals where ${W} and not is_closed group by 1 order by count(*) desc, 1 limit 1`);
    const email = owner!.owner_email;
    const truth = await rowsSql<{ name: string; amount: number }>(`
      select name, amount::float8 as amount from deals where ${W} and not is_closed and owner_email = '${email}'
      order by amount desc nulls last, name`);
    const out = (
      await post({
        measure: 'average',
        filters: [
          { field: 'is_closed', op: 'eq', value: false },
          { field: 'owner_email', op: 'eq', value: email },
        ],
      })
    ).body.data;
    expect(metricOf(out, 'Deals')).toBe(truth.length);
    const sum = truth.reduce((s, t) => s + (t.amount ?? 0), 0);
    expect(metricOf(out, 'Total amount')).toBeCloseTo(sum, 2);
    const priced = truth.filter((t) => t.amount !== null);
    expect(metricOf(out, 'Average amount')).toBeCloseTo(sum / priced.length, 2);
    const listed = tableOf(out, 'Deals')!.data;
    expect(listed.map((r) => r.name).sort()).toEqual(truth.map((t) => t.name).sort());
    expect(listed.map((r) => Number(r.amount))).toEqual([...listed.map((r) => Number(r.amount))].sort((a, b) => b - a));
    // One owner's deals: the lines do not repeat whose they are.
    expect(out.summary.filter((l) => l.startsWith('- **')).every((l) => !l.includes('owned by'))).toBe(true);
  });

  it('counts conversations by kind in a period, latest listed first', async () => {
    const truth = await rowsSql<{ kind: string; n: number }>(`
      select kind, count(*)::int as n from interactions i where ${W} and occurred_at >= '2026-07-01' and occurred_at < '2026-10-01'
        and not exists (select 1 from excluded_interactions x where x.interaction_id = i.id)
      group by 1`);
    const out = (
      await post({
        records: 'conversations',
        measure: 'list',
        filters: [{ field: 'kind', op: 'in', value: ['call', 'meeting'] }],
        group_by: 'kind',
        period: { from: '2026-07-01', to: '2026-10-01' },
        limit: 5,
      })
    ).body.data;
    const expected = truth.filter((t) => t.kind === 'call' || t.kind === 'meeting');
    expect(metricOf(out, 'Number of calls and meetings')).toBe(expected.reduce((s, t) => s + t.n, 0));
    const groups = tableOf(out, 'By kind')!.data;
    for (const t of expected) expect(Number(groups.find((g) => g.kind === t.kind)!.count)).toBe(t.n);
    const latest = tableOf(out, 'Conversations')!.data;
    expect(latest).toHaveLength(5);
    expect(latest.map((r) => String(r.occurred_at))).toEqual(
      [...latest.map((r) => String(r.occurred_at))].sort().reverse(),
    );
  });

  it('fits one agent tool result: a list too long keeps its table, cut, citing the rows it kept', async () => {
    const [all] = await rowsSql<{ n: number }>(`select count(*)::int as n from deals where ${W}`);
    expect(all!.n).toBeGreaterThan(50);
    const out = (await post({ measure: 'list', group_by: 'account_name' })).body.data;
    expect(JSON.stringify({ ok: true, output: out }).length).toBeLessThanOrEqual(TOOL_RESULT_BUDGET);
    expect(metricOf(out, 'Deals')).toBe(all!.n);
    const list = tableOf(out, 'Deals')!;
    const groups = tableOf(out, 'Deals by account')!;
    expect(list.data.length).toBeGreaterThan(0);
    expect(groups.data.length).toBeGreaterThan(0);
    expect((list.query as { limit: number }).limit).toBe(list.data.length);
    const check = await verifyAsReturned(h, ws.viewer.key, CORPUS_WORKSPACE_ID, out);
    expect(check.honest.grounding.verified, JSON.stringify(check.honest.grounding)).toBe(true);
  });

  it('passes the grounding verifier as returned; a changed cell fails it', async () => {
    const out = (
      await post({ measure: 'total', group_by: 'stage', filters: [{ field: 'is_closed', op: 'eq', value: false }] })
    ).body.data;
    const check = await verifyAsReturned(h, ws.viewer.key, CORPUS_WORKSPACE_ID, out);
    expect(check.honest.grounding.verified, JSON.stringify(check.honest.grounding)).toBe(true);
    const tampered = await check.tampered('sum_amount', 1);
    expect(tampered.grounding.verified).toBe(false);
  });

  it('reads nothing of another workspace', async () => {
    const res = await post(
      { measure: 'count', filters: [{ field: 'is_closed', op: 'eq', value: false }] },
      other.viewer.key,
    );
    expect(res.status).toBe(200);
    const out = res.body.data;
    expect(metricOf(out, 'Deals') ?? 0).toBe(0);
    expect(tableOf(out, 'Deals')).toBeNull();
    const [name] = await rowsSql<{ name: string }>(`select name from deals where ${W} limit 1`);
    const named = (await post({ filters: [{ field: 'name', op: 'eq', value: name!.name }] }, other.viewer.key)).body
      .data;
    expect(JSON.stringify(named)).not.toContain(`"name":"${name!.name}"`);
    expect(metricOf(named, 'Deals') ?? 0).toBe(0);
  });

  it('refuses a malformed request with 400 invalid_argument naming the field', async () => {
    for (const [body, field] of [
      [{ measure: 'median' }, 'measure'],
      [{ records: 'conversations', measure: 'win_rate' }, 'measure'],
      [{ group_by: 'kind' }, 'group_by'],
      [{ records: 'conversations', group_by: 'owner_email' }, 'group_by'],
      [{ records: 'conversations', period_field: 'close_date' }, 'period_field'],
      [{ filters: [{ field: 'favourite_colour', op: 'eq', value: 'red' }] }, 'filters.0.field'],
      [{ period: { from: '2026-10-01', to: '2026-07-01' } }, 'period.to'],
      [{ order: { field: 'amount', dir: 'up' } }, 'order.dir'],
      [{ limit: 51 }, 'limit'],
      [{ pipeline: true }, 'pipeline'],
    ] as const)
      await expectInvalid(h, ws.viewer.key, '/analyses/records', body, field);
  });

  it('is the MCP analyze tool, with the same result', async () => {
    const body = { measure: 'count', group_by: 'stage' } as const;
    const text = await mcpAnalyze(h, ws.viewer.key, 'records', body);
    const rest = (await post(body)).body.data;
    for (const g of tableOf(rest, 'Deals by stage')!.data) expect(text).toContain(`"stage":"${String(g.stage)}"`);
    expect(text).toContain('"analysis":"records"');
  });
});
