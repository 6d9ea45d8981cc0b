import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnalysisOutput } from '../../functions/analyses/analysis.js';
import { queryRows } from '../../platform/db/port.js';
import { CORPUS_WORKSPACE_ID } from '../support/corpus-fixture.js';
import { createHarness, openCorpusDatabase, type Harness, type SeededWorkspace } from '../support/harness.js';
import { expectInvalid, mcpAnalyze, verifyAsReturned } from './analysis-checks.js';

/**
 * Champion changes over the demo corpus: each change of a deal's champion status found again by a
 * self-join on the assessment before it, the contacts marked champion who left, the deal's outcome
 * since, the filters, the buyers' sentences, and the verifier re-running the analysis.
 */

let h: Harness;
let ws: SeededWorkspace;
let other: SeededWorkspace;

interface Truth extends Record<string, unknown> {
  deal_name: string;
  changed_at: string;
  from_status: string;
  to_status: string;
  outcome: string;
  left: boolean;
}

/** Each champion assessment joined to the one just before it on its deal; a change is a different status. */
async function truth(where = 'true'): Promise<Truth[]> {
  return queryRows<Truth>(
    h.database.db,
    sql.raw(`
      select d.name as deal_name, q.occurred_at::date::text as changed_at, p.status as from_status, q.status as to_status,
             case when d.is_won then 'won' when d.is_closed then 'lost' else 'open' end as outcome,
             coalesce(q.notes, '') ilike '%left%' as left
      from deal_qualification q
      join deal_qualification p on p.deal_id = q.deal_id and p.criterion = 'champion'
        and p.occurred_at = (select max(occurred_at) from deal_qualification x
                             where x.deal_id = q.deal_id and x.criterion = 'champion' and x.occurred_at < q.occurred_at)
      join deals d on d.id = q.deal_id left join accounts a on a.id = d.account_id
      where q.workspace_id = '${CORPUS_WORKSPACE_ID}' and q.criterion = 'champion' and p.status <> q.status and ${where}
      order by d.name, q.occurred_at`),
  );
}

const post = (body: unknown, key = ws.viewer.key) =>
  h.request<{ data: AnalysisOutput }>('POST', '/analyses/champion-changes', { key, body });
const key = (r: Record<string, unknown>) => `${String(r.deal_name)}@${String(r.changed_at)}`;

beforeAll(async () => {
  h = await createHarness({ database: await openCorpusDatabase() });
  ws = await h.corpusWorkspace();
  other = await h.seedWorkspace('Champion changes, other tenant');
}, 120_000);
afterAll(async () => {
  await h.close();
  await h.database.close();
});

describe('POST /analyses/champion-changes', () => {
  it('finds every change of a champion status, left ones first, with the outcome since, as independent SQL does', async () => {
    const expected = await truth();
    expect(expected.length).toBeGreaterThan(20);
    const out = (await post({ limit: 200 })).body.data;
    expect(out.analysis).toBe('champion_changes');
    const rows = out.results.changes as unknown as (Truth & { change: string })[];
    expect(rows.map(key).sort()).toEqual(expected.map(key).sort());
    const byKey = new Map(rows.map((r) => [key(r), r]));
    for (const t of expected) {
      const got = byKey.get(key(t))!;
      expect([got.from_status, got.to_status, got.outcome]).toEqual([t.from_status, t.to_status, t.outcome]);
      if (t.left) expect(got.change).toBe('left');
    }
    const lefts = expected.filter((t) => t.left).length;
    expect(rows.slice(0, lefts).every((r) => r.change === 'left')).toBe(true);
    const [contacts] = await queryRows<{ n: number }>(
      h.database.db,
      sql`select count(*)::int as n from contacts where workspace_id = ${CORPUS_WORKSPACE_ID}::uuid and is_champion and left_at is not null`,
    );
    expect(out.results.totals![0]).toMatchObject({
      changes: expected.length,
      deals: new Set(expected.map((t) => t.deal_name)).size,
      left: lefts,
      contacts_left: contacts!.n,
    });
    expect(out.results.departures).toHaveLength(contacts!.n);
    expect(out.summary[0]).toContain(`${expected.length} champion changes`);
  });

  it('counts every change even when the table shows fewer, and reads only the kinds asked', async () => {
    const expected = await truth();
    const few = (await post({ limit: 3 })).body.data;
    expect(few.results.changes).toHaveLength(3);
    expect(few.results.totals![0]!.changes).toBe(expected.length);
    const weakened = (await post({ changes: ['weakened'], limit: 200 })).body.data;
    expect(weakened.results.changes!.every((r) => r.change === 'weakened')).toBe(true);
    expect(weakened.results.departures).toEqual([]);
  });

  it('names every champion who left however few changes the table shows, and each account’s deals since, as independent SQL does', async () => {
    const departed = await queryRows<{ contact: string }>(
      h.database.db,
      sql`select name as contact from contacts where workspace_id = ${CORPUS_WORKSPACE_ID}::uuid and is_champion and left_at is not null`,
    );
    expect(departed.length).toBeGreaterThan(2);
    const since = await queryRows<{ deal_name: string; outcome: string }>(
      h.database.db,
      sql`select distinct d.name as deal_name, case when d.is_won then 'won' when d.is_closed then 'lost' else 'open' end as outcome
          from contacts c join deals d on d.account_id = c.account_id
          where c.workspace_id = ${CORPUS_WORKSPACE_ID}::uuid and c.is_champion and c.left_at is not null
            and (not d.is_closed or d.close_date >= c.left_at::date)`,
    );
    expect(new Set(since.map((d) => d.outcome)).size).toBeGreaterThan(1);
    const out = (await post({ limit: 2 })).body.data;
    expect(out.results.changes).toHaveLength(2);
    expect((out.results.departures ?? []).map((r) => r.contact).sort()).toEqual(departed.map((r) => r.contact).sort());
    expect(out.results.totals![0]!.contacts_left).toBe(departed.length);
    const got = (out.results.deals_since ?? []).map((r) => `${String(r.deal_name)}:${String(r.outcome)}`);
    expect([...new Set(got)].sort()).toEqual(since.map((d) => `${d.deal_name}:${d.outcome}`).sort());
    const text = out.summary.join('\n');
    for (const { contact } of departed) expect(text).toContain(contact);
    const lost = since.find((d) => d.outcome === 'lost');
    if (lost) expect(text).toContain(lost.deal_name);
  });

  it('narrows by period, account and owner', async () => {
    const h1 = await truth(`q.occurred_at >= '2026-01-01' and q.occurred_at < '2026-07-01'`);
    const inH1 = (await post({ period: { from: '2026-01-01', to: '2026-07-01' }, limit: 200 })).body.data;
    expect(inH1.results.changes!.map(key).sort()).toEqual(h1.map(key).sort());
    expect(inH1.read_as).toContain('from 2026-01-01, before 2026-07-01');

    const [top] = await queryRows<{ account: string }>(
      h.database.db,
      sql`select a.name as account from deal_qualification q join deals d on d.id = q.deal_id join accounts a on a.id = d.account_id
          where q.workspace_id = ${CORPUS_WORKSPACE_ID}::uuid and q.criterion = 'champion' group by 1 order by count(*) desc, 1 limit 1`,
    );
    const onAccount = await truth(`a.name = '${top!.account}'`);
    const got = (await post({ accounts: [top!.account.toLowerCase()], limit: 200 })).body.data;
    expect(got.results.changes!.map(key).sort()).toEqual(onAccount.map(key).sort());
    for (const q of got.blocks) if (q.kind === 'quote') expect(q.source.account).toBe(top!.account);

    const oscar = await truth(`d.owner_email like 'oscar.%'`);
    const mine = (await post({ owners: ['Oscar Rossi'], limit: 200 })).body.data;
    expect(mine.results.changes!.map(key).sort()).toEqual(oscar.map(key).sort());
  });

  it('quotes buyers naming a champion leaving, verbatim from the turn or email cited', async () => {
    const out = (await post({})).body.data;
    const quotes = out.blocks.flatMap((b) => (b.kind === 'quote' ? [b] : []));
    expect(quotes.length).toBeGreaterThan(0);
    for (const q of quotes) {
      expect(q.text).toMatch(/champion/i);
      const [source] = await queryRows<{ text: string }>(
        h.database.db,
        q.source.turn_id
          ? sql`select text from transcript_turns where id = ${q.source.turn_id}::uuid and side = 'external'`
          : sql`select body as text from interactions where id = ${q.source.interaction_id}::uuid and direction = 'inbound'`,
      );
      expect(source!.text).toContain(q.text);
    }
  });

  it('answers another workspace with nothing of this one, and says why it is empty', async () => {
    const res = await post({}, other.viewer.key);
    expect(res.status).toBe(200);
    expect(res.body.data.results.changes).toEqual([]);
    expect(res.body.data.blocks).toEqual([]);
    expect(res.body.data.empty_reason).toMatch(/No champion changes/);
  });

  it('refuses a malformed request with 400 invalid_argument naming the field', async () => {
    for (const [body, field] of [
      [{ period: { from: '2026-10-01', to: '2026-07-01' } }, 'period.to'],
      [{ changes: ['promoted'] }, 'changes.0'],
      [{ changes: [] }, 'changes'],
      [{ limit: 500 }, 'limit'],
      [{ accounts: 'Acme' }, 'accounts'],
    ] as const)
      await expectInvalid(h, ws.viewer.key, '/analyses/champion-changes', body, field);
  });

  it('is the MCP analyze tool, with the same result', async () => {
    const text = await mcpAnalyze(h, ws.viewer.key, 'champion_changes', { limit: 2 });
    const rest = (await post({ limit: 2 })).body.data.results.changes!;
    for (const r of rest) expect(text).toContain(r.deal_name as string);
  });
});

describe('champion changes under the verifier', () => {
  it('passes as returned and fails when a cell is changed', async () => {
    const out = (await post({ limit: 20 })).body.data;
    const { honest, tampered } = await verifyAsReturned(h, ws.viewer.key, CORPUS_WORKSPACE_ID, out);
    expect(honest.grounding.verified, JSON.stringify(honest.grounding)).toBe(true);
    // A value no row holds, so the cell is changed whichever table of outcomes comes first.
    const caught = await tampered('outcome', 'abandoned');
    expect(caught.grounding.verified).toBe(false);
  });
});
