import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BlockDraft } from '../../functions/agents/answer.js';
import type { AnalysisOutput } from '../../functions/analyses/analysis.js';
import { queryRows } from '../../platform/db/port.js';
import { CORPUS_WORKSPACE_ID } from '../support/corpus-fixture.js';
import { createHarness, openCorpusDatabase, type Harness, type SeededWorkspace } from '../support/harness.js';
import { expectInvalid, mcpAnalyze, verifyAsReturned } from './analysis-checks.js';

/**
 * The competitors analysis over the demo corpus, through REST and MCP: each competitor's
 * conversations, accounts, deals and win rate checked against independent SQL over everything said
 * or written, and its tables through the verifier (a changed cell fails).
 */

let h: Harness;
let ws: SeededWorkspace;
let other: SeededWorkspace;

interface Row extends Record<string, unknown> {
  competitor: string;
  conversations: number;
  accounts: number;
  deals: number;
  won: number;
  lost: number;
  open: number;
  win_rate_pct: number | null;
  rest_win_rate_pct: number | null;
}

const post = (body: unknown, key = ws.viewer.key) =>
  h.request<{ data: AnalysisOutput }>('POST', '/analyses/competitors', { key, body });
const rowsOf = (out: AnalysisOutput) => out.results.competitors as unknown as Row[];

/** One competitor's figures another way: the whole text of each conversation, concatenated, searched once. */
async function truth(name: string, where = 'true'): Promise<Row> {
  const [row] = await queryRows<Row>(
    h.database.db,
    sql.raw(`
      with said as (
        select i.id, i.account_id, i.deal_id,
               concat_ws(' ', i.title, i.summary, i.body, (select string_agg(t.text, ' ') from transcript_turns t where t.interaction_id = i.id)) as everything
        from interactions i
        where i.workspace_id = '${CORPUS_WORKSPACE_ID}' and ${where}
          and not exists (select 1 from excluded_interactions x where x.interaction_id = i.id)),
      hit as (select * from said where position(lower('${name}') in lower(everything)) > 0),
      hit_deals as (select distinct d.* from hit join deals d on d.id = hit.deal_id),
      closed_rest as (select * from deals d where d.workspace_id = '${CORPUS_WORKSPACE_ID}' and d.is_closed
                      and d.id not in (select id from hit_deals))
      select '${name}' as competitor, (select count(*)::int from hit) as conversations,
             (select count(distinct account_id)::int from hit) as accounts,
             (select count(*)::int from hit_deals) as deals,
             (select count(*)::int from hit_deals where is_won) as won,
             (select count(*)::int from hit_deals where is_closed and not is_won) as lost,
             (select count(*)::int from hit_deals where not is_closed) as open,
             (select round(100.0 * count(*) filter (where is_won) / nullif(count(*) filter (where is_closed), 0), 1)::float8 from hit_deals) as win_rate_pct,
             (select round(100.0 * count(*) filter (where is_won) / nullif(count(*), 0), 1)::float8 from closed_rest) as rest_win_rate_pct`),
  );
  return row!;
}

beforeAll(async () => {
  h = await createHarness({ database: await openCorpusDatabase() });
  ws = await h.corpusWorkspace();
  other = await h.seedWorkspace('Competitors, other tenant');
}, 120_000);
afterAll(async () => {
  await h.close();
  await h.database.close();
});

describe('POST /analyses/competitors', () => {
  it('finds the rivals named after comparison words and counts each as independent SQL does', async () => {
    const out = (await post({})).body.data;
    expect(out.analysis).toBe('competitors');
    const rows = rowsOf(out);
    expect(rows.length).toBeGreaterThanOrEqual(3);
    // Found, not listed: none of them is one of the workspace's own accounts or contacts.
    const own = await queryRows<{ name: string }>(
      h.database.db,
      sql`select lower(name) as name from accounts where workspace_id = ${CORPUS_WORKSPACE_ID}::uuid
          union select lower(name) from contacts where workspace_id = ${CORPUS_WORKSPACE_ID}::uuid`,
    );
    for (const r of rows) expect(own.map((o) => o.name)).not.toContain(r.competitor.toLowerCase());
    for (const r of rows) expect(r).toEqual(await truth(r.competitor));
    const conversations = rows.map((r) => -r.conversations);
    expect(conversations).toEqual([...conversations].sort((a, b) => a - b));
    expect(out.summary[0]).toContain(
      `${rows[0]!.competitor} comes up most: in ${rows[0]!.conversations} conversations`,
    );
  });

  it('reads one competitor in a period, on its accounts and deals, with a quote from a buyer', async () => {
    const all = rowsOf((await post({})).body.data);
    const name = all[1]!.competitor;
    const period = { from: '2026-01-01', to: '2026-10-01' };
    const out = (await post({ competitors: [name.toUpperCase()], period })).body.data;
    const [row] = rowsOf(out);
    const expected = await truth(name, `i.occurred_at >= '2026-01-01' and i.occurred_at < '2026-10-01'`);
    expect({ ...row, competitor: name }).toEqual(expected);
    expect(out.read_as).toContain('from 2026-01-01, before 2026-10-01');
    const deals = out.results.deals as { account: string; deal: string | null; conversations: number }[];
    expect(deals.length).toBeGreaterThan(0);
    const quote = out.blocks.find((b): b is Extract<BlockDraft, { kind: 'quote' }> => b.kind === 'quote');
    expect(quote?.text.toLowerCase()).toContain(name.toLowerCase());
    expect(quote?.source.side).toBe('external');

    const account = deals[0]!.account;
    const onAccount = rowsOf((await post({ competitors: [name], accounts: [account] })).body.data);
    expect(onAccount[0]!.accounts).toBe(1);
  });

  it('answers another workspace with nothing of this one, and a rival nobody named with why', async () => {
    const res = await post({}, other.viewer.key);
    expect(res.status).toBe(200);
    expect(res.body.data.results.competitors).toEqual([]);
    expect(res.body.data.blocks).toEqual([]);
    expect(res.body.data.empty_reason).toMatch(/No competitor/);
    const nobody = (await post({ competitors: ['Zzyzx Analytics'] })).body.data;
    expect(nobody.empty_reason).toContain('Zzyzx Analytics');
  });

  it('refuses a malformed request with 400 invalid_argument naming the field', async () => {
    for (const [body, field] of [
      [{ period: { from: '2026-10-01', to: '2026-07-01' } }, 'period.to'],
      [{ competitors: [''] }, 'competitors.0'],
      [{ competitors: 'Pipewell' }, 'competitors'],
      [{ limit: 51 }, 'limit'],
      [{ rival: 'x' }, 'rival'],
    ] as const)
      await expectInvalid(h, ws.viewer.key, '/analyses/competitors', body, field);
  });

  it('is the MCP analyze tool, with the same result', async () => {
    const text = await mcpAnalyze(h, ws.viewer.key, 'competitors', { limit: 2 });
    const rest = rowsOf((await post({ limit: 2 })).body.data);
    expect(text).toContain(`"competitor":"${rest[0]!.competitor}","conversations":${rest[0]!.conversations}`);
  });
});

describe('the competitor tables are re-run by the verifier', () => {
  it('passes as returned and fails when a model changes a win rate', async () => {
    const out = (await post({ limit: 3 })).body.data;
    const table = out.blocks[0] as Extract<BlockDraft, { kind: 'table' }>;
    expect(table.query).toMatchObject({ operation: 'analyses.competitors', result: 'competitors' });
    const { honest, tampered } = await verifyAsReturned(h, ws.viewer.key, CORPUS_WORKSPACE_ID, out);
    expect(honest.grounding.verified, JSON.stringify(honest.grounding)).toBe(true);
    const caught = await tampered('win_rate_pct', 99.9);
    expect(caught.grounding.verified).toBe(false);
  });
});
