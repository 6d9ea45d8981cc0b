import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnalysisOutput } from '../../functions/analyses/analysis.js';
import { queryRows } from '../../platform/db/port.js';
import { CORPUS_WORKSPACE_ID } from '../support/corpus-fixture.js';
import { createHarness, openCorpusDatabase, type Harness, type SeededWorkspace } from '../support/harness.js';
import { expectInvalid, mcpAnalyze, verifyAsReturned } from './analysis-checks.js';

/**
 * An account's history over the demo corpus: its conversations counted by kind and month, first and
 * last, its deals and their amounts, its qualification changes, all as independent SQL reads them; a
 * name the workspace does not hold answers that it does not, with no other account's facts.
 */

let h: Harness;
let ws: SeededWorkspace;
let other: SeededWorkspace;
const ACCOUNT = 'Acme Logistics';

const post = (body: unknown, key = ws.viewer.key) =>
  h.request<{ data: AnalysisOutput }>('POST', '/analyses/account-history', { key, body });

async function facts(where = 'true') {
  const [row] = await queryRows<Record<string, unknown>>(
    h.database.db,
    sql.raw(`
      with acc as (select id from accounts where workspace_id = '${CORPUS_WORKSPACE_ID}' and name = '${ACCOUNT}'),
      conv as (select * from interactions i where i.account_id = (select id from acc) and ${where}
               and not exists (select 1 from excluded_interactions x where x.interaction_id = i.id))
      select (select min(occurred_at)::date::text from conv) as first_touch, (select max(occurred_at)::date::text from conv) as last_touch,
             (select count(*)::int from conv) as conversations, (select count(*)::int from conv where kind = 'call') as calls,
             (select count(*)::int from conv where kind = 'meeting') as meetings, (select count(*)::int from conv where kind = 'email') as emails,
             (select count(*)::int from deals where account_id = (select id from acc) and is_won) as deals_won,
             (select coalesce(sum(amount), 0)::float8 from deals where account_id = (select id from acc) and is_won) as won_amount,
             (select count(*)::int from deals where account_id = (select id from acc) and not is_closed) as deals_open,
             (select coalesce(sum(amount), 0)::float8 from deals where account_id = (select id from acc) and not is_closed) as open_amount,
             (select count(*)::int from deals where account_id = (select id from acc)) as deals`),
  );
  return row!;
}

beforeAll(async () => {
  h = await createHarness({ database: await openCorpusDatabase() });
  ws = await h.corpusWorkspace();
  other = await h.seedWorkspace('Account history, other tenant');
}, 120_000);
afterAll(async () => {
  await h.close();
  await h.database.close();
});

describe('POST /analyses/account-history', () => {
  it("reads the account's conversations, deals and qualification changes, as independent SQL does", async () => {
    const expected = await facts();
    const res = await post({ account: 'acme logistics' });
    expect(res.status).toBe(200);
    const out = res.body.data;
    expect(out.analysis).toBe('account_history');
    expect(out.results.account![0]).toMatchObject({ name: ACCOUNT });
    const o = out.results.overview![0]!;
    for (const k of [
      'first_touch',
      'last_touch',
      'conversations',
      'calls',
      'meetings',
      'emails',
      'deals_won',
      'won_amount',
      'deals_open',
      'open_amount',
    ])
      expect(o[k], k).toEqual(expected[k]);
    expect(out.results.deals).toHaveLength(expected.deals as number);
    const months = out.results.by_month as { month: string; conversations: number }[];
    expect(months.reduce((s, m) => s + m.conversations, 0)).toBe(expected.conversations);
    expect(months.map((m) => m.month)).toEqual([...months.map((m) => m.month)].sort());

    const changes = await queryRows<{ n: number }>(
      h.database.db,
      sql`select count(*)::int as n from deal_qualification q join deals d on d.id = q.deal_id join accounts a on a.id = d.account_id
          where a.name = ${ACCOUNT} and a.workspace_id = ${CORPUS_WORKSPACE_ID}::uuid and q.status <> (
            select p.status from deal_qualification p where p.deal_id = q.deal_id and p.criterion = q.criterion and p.occurred_at < q.occurred_at
            order by p.occurred_at desc limit 1)`,
    );
    expect(out.results.qualification_changes).toHaveLength(changes[0]!.n);
    // The timeline is in order and holds every conversation, deal event and change (within the limit).
    const timeline = out.results.timeline as { at: string; event: string }[];
    expect(timeline.map((e) => e.at)).toEqual([...timeline.map((e) => e.at)].sort());
    expect(timeline.filter((e) => ['call', 'meeting', 'email'].includes(e.event))).toHaveLength(
      expected.conversations as number,
    );
    expect(timeline.filter((e) => e.event === 'deal opened')).toHaveLength(expected.deals as number);
    expect(out.summary[0]).toContain(`first conversation ${String(expected.first_touch)}`);
    expect(out.summary[0]).toContain(`${String(expected.conversations)} conversations`);
  });

  it('bounds everything by a period, and keeps the latest events when the timeline is limited', async () => {
    const expected = await facts(`i.occurred_at >= '2026-01-01' and i.occurred_at < '2026-07-01'`);
    const out = (await post({ account: ACCOUNT, period: { from: '2026-01-01', to: '2026-07-01' } })).body.data;
    const o = out.results.overview![0]!;
    expect([o.conversations, o.first_touch, o.last_touch]).toEqual([
      expected.conversations,
      expected.first_touch,
      expected.last_touch,
    ]);
    for (const e of out.results.timeline as { at: string }[])
      expect(e.at >= '2026-01-01' && e.at < '2026-07-01').toBe(true);
    const all = (await post({ account: ACCOUNT })).body.data.results.timeline as { at: string }[];
    const last3 = (await post({ account: ACCOUNT, limit: 3 })).body.data.results.timeline as { at: string }[];
    expect(last3.map((e) => e.at)).toEqual(all.slice(-3).map((e) => e.at));
  });

  it("says an account it does not hold is not there, with near names only, never another account's facts", async () => {
    const res = await post({ account: 'Acme' });
    expect(res.status).toBe(200);
    const out = res.body.data;
    expect(out.empty_reason).toContain('No account named "Acme"');
    expect(out.empty_reason).toContain(ACCOUNT);
    expect(out.blocks).toEqual([]);
    expect(Object.values(out.results).every((rows) => rows.length === 0)).toBe(true);
    const elsewhere = (await post({ account: ACCOUNT }, other.viewer.key)).body.data;
    expect(elsewhere.empty_reason).toBe(`No account named "${ACCOUNT}" in this workspace.`);
    expect(elsewhere.blocks).toEqual([]);
  });

  it('refuses a malformed request with 400 invalid_argument naming the field', async () => {
    for (const [body, field] of [
      [{}, 'account'],
      [{ account: '  ' }, 'account'],
      [{ account: ACCOUNT, period: { from: '2026-13-01', to: '2027-01-01' } }, 'period.from'],
      [{ account: ACCOUNT, limit: 0 }, 'limit'],
      [{ account: ACCOUNT, accounts: [ACCOUNT] }, 'accounts'],
    ] as const)
      await expectInvalid(h, ws.viewer.key, '/analyses/account-history', body, field);
  });

  it('is the MCP analyze tool, with the same result', async () => {
    const text = await mcpAnalyze(h, ws.viewer.key, 'account_history', { account: ACCOUNT, limit: 5 });
    const rest = (await post({ account: ACCOUNT, limit: 5 })).body.data;
    expect(text).toContain(`"conversations":${String(rest.results.overview![0]!.conversations)}`);
    expect(text).toContain(String((rest.results.deals![0] as { deal_name: string }).deal_name));
  });
});

describe('account history under the verifier', () => {
  it('passes as returned and fails when a cell is changed', async () => {
    const out = (await post({ account: ACCOUNT })).body.data;
    const { honest, tampered } = await verifyAsReturned(h, ws.viewer.key, CORPUS_WORKSPACE_ID, out);
    expect(honest.grounding.verified, JSON.stringify(honest.grounding)).toBe(true);
    const caught = await tampered('conversations', 999);
    expect(caught.grounding.verified).toBe(false);
  });
});
