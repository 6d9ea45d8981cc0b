import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOOL_RESULT_BUDGET } from '../../functions/agents/transcript.js';
import type { AnalysisOutput } from '../../functions/analyses/analysis.js';
import { queryRows } from '../../platform/db/port.js';
import { CORPUS_WORKSPACE_ID } from '../support/corpus-fixture.js';
import { createHarness, openCorpusDatabase, type Harness, type SeededWorkspace } from '../support/harness.js';
import { expectInvalid, mcpAnalyze, verifyAsReturned } from './analysis-checks.js';

/**
 * The losses analysis over the demo corpus: the lost deals and the amount lost as independent SQL
 * reads them, the risks flagged on the largest, buyers quoted verbatim from while their deal was open,
 * the verifier re-running each cited search, and another workspace reading none of it.
 */

let h: Harness;
let ws: SeededWorkspace;
let other: SeededWorkspace;

const post = (body: unknown, key = ws.viewer.key) =>
  h.request<{ data: AnalysisOutput }>('POST', '/analyses/losses', { key, body });
const W = `workspace_id = '${CORPUS_WORKSPACE_ID}'`;
const YEAR = { from: '2026-01-01', to: '2027-01-01' };

beforeAll(async () => {
  h = await createHarness({ database: await openCorpusDatabase() });
  ws = await h.corpusWorkspace();
  other = await h.seedWorkspace('Losses, other tenant');
}, 120_000);
afterAll(async () => {
  await h.close();
  await h.database.close();
});

describe('POST /analyses/losses', () => {
  it('counts and totals the deals lost in the period, lists them biggest first, with their flagged risks', async () => {
    const truth = await queryRows<{ name: string; amount: number | null; close_date: string }>(
      h.database.db,
      sql.raw(`select name, amount::float8 as amount, close_date::text as close_date from deals
        where ${W} and is_closed and not is_won and close_date >= '${YEAR.from}' and close_date < '${YEAR.to}'`),
    );
    expect(truth.length).toBeGreaterThan(2);
    const res = await post({ period: YEAR });
    expect(res.status).toBe(200);
    const out = res.body.data;
    expect(out.analysis).toBe('losses');
    const total = out.results.totals![0]!;
    expect(total.count).toBe(truth.length);
    expect(Number(total.sum_amount)).toBeCloseTo(
      truth.reduce((s, t) => s + (t.amount ?? 0), 0),
      2,
    );
    const table = out.blocks.find((b) => b.kind === 'table' && b.title?.startsWith('Deals lost'));
    if (table?.kind !== 'table') throw new Error('no table of lost deals');
    // The largest first, as many as fit one tool result, the citation limited to them.
    const amounts = table.data.map((r) => Number(r.amount ?? -1));
    expect(amounts).toEqual([...amounts].sort((a, b) => b - a));
    const largest = truth.map((t) => t.amount ?? -1).sort((a, b) => b - a);
    expect(amounts).toEqual(largest.slice(0, amounts.length));
    expect(amounts.length).toBeGreaterThanOrEqual(5);
    if (amounts.length < truth.length) expect((table.query as { limit: number }).limit).toBe(amounts.length);
    expect(JSON.stringify({ ok: true, output: out }).length).toBeLessThanOrEqual(TOOL_RESULT_BUDGET);
    expect(out.summary[0]).toContain(`**${truth.length}** deals were lost from 2026-01-01, before 2027-01-01`);
    // The risks are the at-risk assessments of the largest five losses, as the table says.
    const top = table.data.slice(0, 5).map((r) => String(r.name));
    const risks = await queryRows<{ n: number }>(
      h.database.db,
      sql`select count(*)::int as n from deal_qualification q join deals d on d.id = q.deal_id
          where q.workspace_id = ${CORPUS_WORKSPACE_ID}::uuid and q.status = 'at_risk' and d.name in (${sql.join(
            top.map((t) => sql`${t}`),
            sql`, `,
          )})`,
    );
    const riskTable = out.blocks.find((b) => b.kind === 'table' && b.title === 'Risks flagged on these deals');
    const shown = riskTable?.kind === 'table' ? riskTable.data.length : 0;
    // The risks are cut only once the lost deals are down to five.
    if (table.data.length > 5) expect(shown).toBe(Math.min(risks[0]!.n, 30));
    else expect(shown).toBeLessThanOrEqual(Math.min(risks[0]!.n, 30));
  });

  it("quotes buyers verbatim from an external turn of the lost deal's account while it was open", async () => {
    const out = (await post({ period: YEAR })).body.data;
    const quotes = out.blocks.filter((b) => b.kind === 'quote');
    expect(quotes.length).toBeGreaterThan(0);
    for (const q of quotes) {
      if (q.kind !== 'quote') continue;
      const [turn] = await queryRows<{ text: string; side: string; account: string }>(
        h.database.db,
        sql`select t.text, t.side, a.name as account from transcript_turns t join interactions i on i.id = t.interaction_id
            join accounts a on a.id = i.account_id where t.id = ${q.source.turn_id}::uuid`,
      );
      expect(turn!.side).toBe('external');
      expect(turn!.text.replace(/\s+/g, ' ')).toContain(q.text.replace(/…/g, '').trim().slice(0, 40));
      expect(q.source.account).toBe(turn!.account);
    }
  });

  it('passes the grounding verifier as returned; a changed cell fails it', async () => {
    const out = (await post({ period: YEAR })).body.data;
    const check = await verifyAsReturned(h, ws.viewer.key, CORPUS_WORKSPACE_ID, out);
    expect(check.honest.grounding.verified, JSON.stringify(check.honest.grounding)).toBe(true);
    expect((await check.tampered('amount', 1)).grounding.verified).toBe(false);
  });

  it('narrows to an account, and reads nothing of another workspace', async () => {
    const [lost] = await queryRows<{ account: string; n: number }>(
      h.database.db,
      sql.raw(`select a.name as account, count(*)::int as n from deals d join accounts a on a.id = d.account_id
        where d.${W} and d.is_closed and not d.is_won group by 1 order by 2 desc, 1 limit 1`),
    );
    const mine = (await post({ accounts: [lost!.account] })).body.data;
    expect(mine.results.totals![0]!.count).toBe(lost!.n);
    const theirs = await post({ accounts: [lost!.account] }, other.viewer.key);
    expect(theirs.status).toBe(200);
    expect(theirs.body.data.results.totals![0]!.count).toBe(0);
    // Only the request's own words come back: no row, table or quote of this workspace.
    expect(theirs.body.data.blocks.filter((b) => b.kind !== 'metric')).toEqual([]);
    expect(theirs.body.data.summary).toEqual([]);
    expect(theirs.body.data.empty_reason).toMatch(/I found no lost deals/);
  });

  it('refuses a malformed request with 400 invalid_argument naming the field', async () => {
    for (const [body, field] of [
      [{ period: { from: '2026-10-01', to: '2026-07-01' } }, 'period.to'],
      [{ accounts: [] }, 'accounts'],
      [{ deals: [''] }, 'deals.0'],
      [{ filters: [{ field: 'loss_reason', op: 'eq', value: 'price' }] }, 'filters.0.field'],
      [{ reason: 'price' }, 'reason'],
    ] as const)
      await expectInvalid(h, ws.viewer.key, '/analyses/losses', body, field);
  });

  it('is the MCP analyze tool, with the same result', async () => {
    const text = await mcpAnalyze(h, ws.viewer.key, 'losses', { period: YEAR });
    const rest = (await post({ period: YEAR })).body.data;
    expect(text).toContain(`"count":${String(rest.results.totals![0]!.count)}`);
    expect(text).toContain('"analysis":"losses"');
  });
});
