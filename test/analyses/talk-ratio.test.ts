import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BlockDraft } from '../../functions/agents/answer.js';
import type { AnalysisOutput } from '../../functions/analyses/analysis.js';
import { queryRows } from '../../platform/db/port.js';
import { CORPUS_WORKSPACE_ID } from '../support/corpus-fixture.js';
import { createHarness, openCorpusDatabase, type Harness, type SeededWorkspace } from '../support/harness.js';
import { expectInvalid, mcpAnalyze, verifyAsReturned } from './analysis-checks.js';

/**
 * The talk-ratio analysis over the demo corpus, through REST and MCP, each figure checked against
 * independent SQL over the transcript turns: a rep's share is their seconds over all seconds spoken in
 * the conversations they spoke in. Its blocks cite the operation, and the verifier re-runs the citation:
 * a cell changed by a model fails it.
 */

let h: Harness;
let ws: SeededWorkspace;
let other: SeededWorkspace;

type Truth = { rep_email: string; share: number; conversations: number };

/** Each rep's share computed another way: per conversation totals joined back, in one statement. */
async function truth(where = 'true'): Promise<Truth[]> {
  return queryRows<Truth>(
    h.database.db,
    sql.raw(`
      select r.speaker_email as rep_email, count(*)::int as conversations,
             round((100 * sum(r.secs) / sum(c.total))::numeric, 1)::float8 as share
      from (select t.interaction_id, lower(t.speaker_email) as speaker_email, sum(t.ended_at_seconds - t.started_at_seconds) as secs
            from transcript_turns t join interactions i on i.id = t.interaction_id
            where t.workspace_id = '${CORPUS_WORKSPACE_ID}' and t.side = 'internal' and t.speaker_email is not null
              and i.kind in ('call', 'meeting') and ${where}
              and not exists (select 1 from excluded_interactions x where x.interaction_id = i.id)
            group by 1, 2) r
      join (select t.interaction_id, sum(t.ended_at_seconds - t.started_at_seconds) as total
            from transcript_turns t group by 1) c using (interaction_id)
      group by 1 order by share desc, rep_email`),
  );
}

const post = (body: unknown, key = ws.viewer.key) =>
  h.request<{ data: AnalysisOutput }>('POST', '/analyses/talk-ratio', { key, body });

beforeAll(async () => {
  h = await createHarness({ database: await openCorpusDatabase() });
  ws = await h.corpusWorkspace();
  other = await h.seedWorkspace('Talk ratio, other tenant');
}, 120_000);
afterAll(async () => {
  await h.close();
  await h.database.close();
});

describe('POST /analyses/talk-ratio', () => {
  it("ranks every rep by their share of their conversations' speaking time, as independent SQL does", async () => {
    const expected = await truth();
    expect(expected.length).toBeGreaterThan(5);
    const res = await post({});
    expect(res.status).toBe(200);
    const out = res.body.data;
    expect(out.analysis).toBe('talk_ratio');
    const rows = out.results.by_rep as Truth[] & { talk_share_pct: number }[];
    expect(rows.map((r) => [r.rep_email, (r as unknown as { talk_share_pct: number }).talk_share_pct])).toEqual(
      expected.map((t) => [t.rep_email, t.share]),
    );
    expect(rows.map((r) => r.conversations)).toEqual(expected.map((t) => t.conversations));
    expect(out.summary[0]).toContain(`${expected[0]!.share}%`);
  });

  it('reads the best listeners first, one rep by first name, a period and an account', async () => {
    const expected = await truth();
    const least = (await post({ order: 'least', limit: 3 })).body.data.results.by_rep!;
    expect(least.map((r) => r.rep_email)).toEqual(
      [...expected]
        .sort((a, b) => a.share - b.share || a.rep_email.localeCompare(b.rep_email))
        .slice(0, 3)
        .map((t) => t.rep_email),
    );
    const zoe = expected.find((t) => t.rep_email.startsWith('zoe.'))!;
    const one = (await post({ reps: ['zoe'] })).body.data.results.by_rep!;
    expect(one).toHaveLength(1);
    expect(one[0]!.talk_share_pct).toBe(zoe.share);

    const q3 = await truth(`i.occurred_at >= '2026-07-01' and i.occurred_at < '2026-10-01'`);
    const inQ3 = (await post({ period: { from: '2026-07-01', to: '2026-10-01' } })).body.data;
    expect(inQ3.results.by_rep!.map((r) => r.talk_share_pct)).toEqual(q3.map((t) => t.share));
    expect(inQ3.read_as).toContain('from 2026-07-01, before 2026-10-01');

    const [account] = await queryRows<{ name: string }>(
      h.database.db,
      sql`select a.name from accounts a join interactions i on i.account_id = a.id and i.kind = 'call'
          where a.workspace_id = ${CORPUS_WORKSPACE_ID}::uuid group by a.name order by count(*) desc, a.name limit 1`,
    );
    const onAccount = await truth(
      `i.account_id in (select id from accounts where workspace_id = '${CORPUS_WORKSPACE_ID}' and name = '${account!.name.replace(/'/g, "''")}')`,
    );
    const got = (await post({ accounts: [account!.name.toUpperCase()] })).body.data.results.by_rep!;
    expect(got.map((r) => r.talk_share_pct)).toEqual(onAccount.map((t) => t.share));
  });

  it('answers another workspace with nothing of this one, and says why it is empty', async () => {
    const res = await post({}, other.viewer.key);
    expect(res.status).toBe(200);
    expect(res.body.data.results.by_rep).toEqual([]);
    expect(res.body.data.blocks).toEqual([]);
    expect(res.body.data.empty_reason).toMatch(/No timed turns/);
    const nobody = (await post({ reps: ['nobody-here'] })).body.data;
    expect(nobody.empty_reason).toContain('nobody-here');
  });

  it('refuses a malformed request with 400 invalid_argument naming the field', async () => {
    for (const [body, field] of [
      [{ period: { from: '2026-10-01', to: '2026-07-01' } }, 'period.to'],
      [{ period: { from: '2026-99-01', to: '2026-10-01' } }, 'period.from'],
      [{ kinds: ['email'] }, 'kinds.0'],
      [{ limit: 0 }, 'limit'],
      [{ group: 'rep' }, 'group'],
    ] as const)
      await expectInvalid(h, ws.viewer.key, '/analyses/talk-ratio', body, field);
  });

  it('is the MCP analyze tool, with the same result', async () => {
    const text = await mcpAnalyze(h, ws.viewer.key, 'talk_ratio', { order: 'least', limit: 2 });
    const rest = (await post({ order: 'least', limit: 2 })).body.data.results.by_rep!;
    expect(text).toContain(rest[0]!.rep_email as string);
    expect(text).toContain(`"talk_share_pct":${rest[1]!.talk_share_pct}`);
  });
});

describe('a block citing the analysis is re-run by the verifier', () => {
  it('passes as returned and fails when a model changes a cell', async () => {
    const out = (await post({ limit: 5 })).body.data;
    const table = out.blocks[0] as Extract<BlockDraft, { kind: 'table' }>;
    expect(table.query).toMatchObject({ operation: 'analyses.talk_ratio', result: 'by_rep' });
    const { honest, tampered } = await verifyAsReturned(h, ws.viewer.key, CORPUS_WORKSPACE_ID, out);
    expect(out.blocks).toHaveLength(2);
    expect(honest.grounding.verified, JSON.stringify(honest.grounding)).toBe(true);
    const caught = await tampered('talk_share_pct', 99.9);
    expect(caught.grounding.verified).toBe(false);
    expect(caught.content_blocks.some((b) => b.kind === 'table')).toBe(false);
  });
});
