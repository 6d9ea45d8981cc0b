import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnalysisOutput } from '../../functions/analyses/analysis.js';
import { ManualClock } from '../../platform/clock.js';
import { queryRows } from '../../platform/db/port.js';
import { CORPUS_NOW, CORPUS_WORKSPACE_ID } from '../support/corpus-fixture.js';
import { createHarness, openCorpusDatabase, type Harness, type SeededWorkspace } from '../support/harness.js';
import { expectInvalid, mcpAnalyze, verifyAsReturned } from './analysis-checks.js';

/**
 * Renewal risk over the demo corpus (read at its end, 2026-11-20): the open renewals, their latest
 * champion and economic-buyer assessments and last conversation as independent SQL reads them, the
 * amounts open and at risk, the filters, the buyers' sentences found verbatim in their turns, and the
 * verifier re-running the analysis.
 */

let h: Harness;
let ws: SeededWorkspace;
let other: SeededWorkspace;

interface Truth extends Record<string, unknown> {
  deal_name: string;
  amount: number;
  owner_email: string;
  champion: string | null;
  economic_buyer: string | null;
  last_touch: string | null;
}

/** The open renewals read another way: the newest assessment by a correlated max, the last touch by account. */
async function truth(where = 'true'): Promise<Truth[]> {
  return queryRows<Truth>(
    h.database.db,
    sql.raw(`
      select d.name as deal_name, d.amount::float8 as amount, d.owner_email,
        (select q.status from deal_qualification q where q.deal_id = d.id and q.criterion = 'champion'
           and q.occurred_at = (select max(occurred_at) from deal_qualification where deal_id = d.id and criterion = 'champion') limit 1) as champion,
        (select q.status from deal_qualification q where q.deal_id = d.id and q.criterion = 'economic_buyer'
           and q.occurred_at = (select max(occurred_at) from deal_qualification where deal_id = d.id and criterion = 'economic_buyer') limit 1) as economic_buyer,
        (select max(i.occurred_at)::date::text from interactions i where i.account_id = d.account_id) as last_touch
      from deals d left join accounts a on a.id = d.account_id
      where d.workspace_id = '${CORPUS_WORKSPACE_ID}' and d.is_closed = false and lower(d.name) like '%renewal%' and ${where}
      order by d.name`),
  );
}

const post = (body: unknown, key = ws.viewer.key) =>
  h.request<{ data: AnalysisOutput }>('POST', '/analyses/renewal-risk', { key, body });

beforeAll(async () => {
  h = await createHarness({ database: await openCorpusDatabase(), clock: new ManualClock(CORPUS_NOW) });
  ws = await h.corpusWorkspace();
  other = await h.seedWorkspace('Renewal risk, other tenant');
}, 120_000);
afterAll(async () => {
  await h.close();
  await h.database.close();
});

describe('POST /analyses/renewal-risk', () => {
  it('reads every open renewal with its latest qualification and last conversation, as independent SQL does', async () => {
    const expected = await truth();
    expect(expected.length).toBeGreaterThan(3);
    const res = await post({});
    expect(res.status).toBe(200);
    const out = res.body.data;
    expect(out.analysis).toBe('renewal_risk');
    const rows = out.results.renewals as unknown as (Truth & {
      days_since_touch: number;
      at_risk: boolean;
      why: string;
    })[];
    const byName = new Map(rows.map((r) => [r.deal_name, r]));
    expect([...byName.keys()].sort()).toEqual(expected.map((t) => t.deal_name));
    for (const t of expected) {
      const got = byName.get(t.deal_name)!;
      expect([got.amount, got.owner_email, got.champion, got.economic_buyer, got.last_touch]).toEqual([
        t.amount,
        t.owner_email,
        t.champion,
        t.economic_buyer,
        t.last_touch,
      ]);
      expect(got.days_since_touch).toBe(
        Math.round((Date.parse('2026-11-20') - Date.parse(t.last_touch!)) / 86_400_000),
      );
      // A champion or economic buyer at risk or unidentified is always a reason, named in `why`.
      const weak = [t.champion, t.economic_buyer].some((s) => s === 'at_risk' || s === 'unknown' || s === null);
      if (weak) expect(got.at_risk, t.deal_name).toBe(true);
      if (t.champion === 'at_risk') expect(got.why).toContain('champion at risk');
      if (t.economic_buyer === 'unknown') expect(got.why).toContain('no economic buyer identified');
    }
    const total = Math.round(expected.reduce((s, t) => s + t.amount, 0) * 100) / 100;
    const atRisk = rows.filter((r) => r.at_risk);
    expect(out.results.totals).toEqual([
      {
        open_renewals: expected.length,
        open_amount: total,
        at_risk_renewals: atRisk.length,
        at_risk_amount: Math.round(atRisk.reduce((s, r) => s + r.amount, 0) * 100) / 100,
      },
    ]);
    // At risk first, biggest first within each.
    expect(rows.map((r) => r.at_risk)).toEqual([...rows.map((r) => r.at_risk)].sort((a, b) => Number(b) - Number(a)));
    expect(out.summary[0]).toContain(`of the ${expected.length} open renewal deals look at risk`);
  });

  it("quotes buyers' risk sentences verbatim from the turn or email they cite, on the renewal's account", async () => {
    const out = (await post({})).body.data;
    const quotes = out.blocks.filter((b) => b.kind === 'quote');
    expect(quotes.length).toBeGreaterThan(2);
    for (const q of quotes) {
      if (q.kind !== 'quote') continue;
      const [source] = await queryRows<{ text: string; account: string }>(
        h.database.db,
        q.source.turn_id
          ? sql`select t.text, a.name as account from transcript_turns t join interactions i on i.id = t.interaction_id
                join accounts a on a.id = i.account_id where t.id = ${q.source.turn_id}::uuid and t.side = 'external'`
          : sql`select i.body as text, a.name as account from interactions i join accounts a on a.id = i.account_id
                where i.id = ${q.source.interaction_id}::uuid and i.direction = 'inbound'`,
      );
      expect(source!.text).toContain(q.text);
      expect(q.source.account).toBe(source!.account);
      const renewals = (out.results.renewals as { account_name: string }[]).map((r) => r.account_name);
      expect(renewals).toContain(source!.account);
    }
  });

  it('narrows by owner (first name), close period, account, industry and region; a quiet window is a reason', async () => {
    const zoe = await truth(`d.owner_email like 'zoe.%'`);
    const mine = (await post({ owners: ['zoe'] })).body.data.results.renewals!;
    expect(mine.map((r) => r.deal_name).sort()).toEqual(zoe.map((t) => t.deal_name));

    const january = await truth(`d.close_date >= '2027-01-01' and d.close_date < '2027-02-01'`);
    const inJan = (await post({ period: { from: '2027-01-01', to: '2027-02-01' } })).body.data;
    expect(inJan.results.renewals!.map((r) => r.deal_name).sort()).toEqual(january.map((t) => t.deal_name));
    expect(inJan.read_as).toContain('from 2027-01-01, before 2027-02-01');

    const [industry] = await queryRows<{ industry: string }>(
      h.database.db,
      sql`select a.industry from deals d join accounts a on a.id = d.account_id
          where d.workspace_id = ${CORPUS_WORKSPACE_ID}::uuid and not d.is_closed and d.name ilike '%renewal%' and a.industry is not null
          group by 1 order by count(*), 1 limit 1`,
    );
    const inIndustry = await truth(`a.industry = '${industry!.industry}'`);
    const got = (await post({ industries: [industry!.industry.toLowerCase()] })).body.data.results.renewals!;
    expect(got.map((r) => r.deal_name).sort()).toEqual(inIndustry.map((t) => t.deal_name));

    const [acme] = await truth(`a.name = 'Acme Logistics'`);
    const one = (await post({ accounts: ['ACME LOGISTICS'] })).body.data.results.renewals!;
    expect(one.map((r) => r.deal_name)).toEqual([acme!.deal_name]);

    const [region] = await queryRows<{ region: string }>(
      h.database.db,
      sql`select a.region from deals d join accounts a on a.id = d.account_id
          where d.workspace_id = ${CORPUS_WORKSPACE_ID}::uuid and not d.is_closed and d.name ilike '%renewal%' and a.region is not null
          group by 1 order by count(*) desc, 1 limit 1`,
    );
    const inRegion = await truth(`a.region = '${region!.region}'`);
    const gotRegion = (await post({ regions: [region!.region] })).body.data.results.renewals!;
    expect(gotRegion.map((r) => r.deal_name).sort()).toEqual(inRegion.map((t) => t.deal_name));

    const quiet = (await post({ quiet_days: 10 })).body.data.results.renewals as {
      days_since_touch: number;
      why: string;
    }[];
    for (const r of quiet)
      if (r.days_since_touch >= 10) expect(r.why).toContain(`no conversation in ${r.days_since_touch} days`);
    expect(quiet.some((r) => r.days_since_touch >= 10)).toBe(true);
  });

  it('answers another workspace with nothing of this one, and says why it is empty', async () => {
    const res = await post({}, other.viewer.key);
    expect(res.status).toBe(200);
    expect(res.body.data.results.renewals).toEqual([]);
    expect(res.body.data.blocks).toEqual([]);
    expect(res.body.data.empty_reason).toMatch(/No open renewal deals/);
    const nobody = (await post({ owners: ['nobody-here'] })).body.data;
    expect(nobody.empty_reason).toContain('with those filters');
  });

  it('refuses a malformed request with 400 invalid_argument naming the field', async () => {
    for (const [body, field] of [
      [{ period: { from: '2026-10-01', to: '2026-07-01' } }, 'period.to'],
      [{ quiet_days: 0 }, 'quiet_days'],
      [{ as_of: '2026-02-30' }, 'as_of'],
      [{ owners: [] }, 'owners'],
      [{ regions: [''] }, 'regions.0'],
      [{ renewal: true }, 'renewal'],
    ] as const)
      await expectInvalid(h, ws.viewer.key, '/analyses/renewal-risk', body, field);
  });

  it('is the MCP analyze tool, with the same result', async () => {
    const text = await mcpAnalyze(h, ws.viewer.key, 'renewal_risk', { owners: ['zoe'] });
    const rest = (await post({ owners: ['zoe'] })).body.data.results.renewals!;
    for (const r of rest) expect(text).toContain(r.deal_name as string);
    expect(text).toContain('"open_renewals":');
  });
});

describe('renewal risk under the verifier', () => {
  it('passes as returned (tables re-run, quotes found, every figure backed) and fails when a cell is changed', async () => {
    const out = (await post({})).body.data;
    const { honest, tampered } = await verifyAsReturned(h, ws.viewer.key, CORPUS_WORKSPACE_ID, out);
    expect(honest.grounding.verified, JSON.stringify(honest.grounding)).toBe(true);
    expect(honest.content_blocks.filter((b) => b.kind === 'quote').length).toBe(
      out.blocks.filter((b) => b.kind === 'quote').length,
    );
    const caught = await tampered('amount', 1);
    expect(caught.grounding.verified).toBe(false);
    expect(caught.content_blocks.some((b) => b.kind === 'table')).toBe(false);
  });
});
