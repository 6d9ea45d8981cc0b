import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Answer } from '../../functions/agents/answer.js';
import { queryRows } from '../../platform/db/port.js';
import type { LocalTransport } from '../../queues/transport/local.js';
import { CORPUS_WORKSPACE_ID } from '../support/corpus-fixture.js';
import { createHarness, openCorpusDatabase, type Harness, type SeededWorkspace } from '../support/harness.js';
import { corpusClock } from './question-set/ask.js';

/**
 * Chat answers renewal-risk, champion-change and account-history questions through their analyses:
 * the local model reads the question, calls the operation as a tool, and answers with its summary and
 * blocks; the verifier passes them, and the figures are the ones independent SQL gives.
 */

let h: Harness;
let ws: SeededWorkspace;

async function ask(input: string): Promise<{ status: string; answer: Answer }> {
  const res = await h.request('POST', '/chat', { key: ws.editor.key, body: { input } });
  expect(res.status, res.text).toBe(202);
  await (h.services.queue as LocalTransport).drain();
  const run = (await h.request('GET', `/chat/runs/${res.body.data.run_id}`, { key: ws.viewer.key })).body.data;
  return { status: run.status as string, answer: run.answer as Answer };
}

const tables = (a: Answer) => a.content_blocks.flatMap((b) => (b.kind === 'table' ? [b] : []));

beforeAll(async () => {
  h = await createHarness({ database: await openCorpusDatabase(), clock: corpusClock });
  ws = await h.corpusWorkspace();
}, 120_000);
afterAll(async () => {
  await h.close();
  await h.database.close();
});

describe('chat through the account analyses', () => {
  it('"what happened with Prism Logistics this quarter" says no deal closed, backed by the empty query in the answer', async () => {
    const [truth] = await queryRows<{ closed: number }>(
      h.database.db,
      sql`select count(*)::int as closed from deals d join accounts a on a.id = d.account_id
          where d.workspace_id = ${CORPUS_WORKSPACE_ID}::uuid and a.name = 'Prism Logistics' and d.is_closed
            and d.close_date >= '2026-10-01' and d.close_date < '2027-01-01'`,
    );
    expect(truth!.closed).toBe(0);
    const { status, answer } = await ask('What happened with Prism Logistics this quarter?');
    expect(status).toBe('complete');
    expect(answer.grounding.verified, JSON.stringify(answer.grounding.problems)).toBe(true);
    expect(answer.text).toContain('No deal was won or lost.');
    const closed = tables(answer).find((t) => t.title === 'Deals closed');
    expect(closed?.data).toEqual([]);
  });

  it('"which renewals are at risk?" is answered by renewal risk, verified, with every open renewal', async () => {
    const [truth] = await queryRows<{ n: number; amount: number }>(
      h.database.db,
      sql`select count(*)::int as n, sum(amount)::float8 as amount from deals
          where workspace_id = ${CORPUS_WORKSPACE_ID}::uuid and not is_closed and name ilike '%renewal%'`,
    );
    for (const q of ['which renewals are at risk?', 'which customers might not renew']) {
      const { status, answer } = await ask(q);
      expect(status).toBe('complete');
      expect(answer.interpretation?.analysis, q).toBe('renewal_risk');
      expect(answer.grounding.verified, `${q}: ${JSON.stringify(answer.grounding)}`).toBe(true);
      const totals = tables(answer).find((t) => t.title === 'Amounts open and at risk')!;
      expect(totals.data[0]).toMatchObject({ open_renewals: truth!.n, open_amount: truth!.amount });
      expect(
        answer.content_blocks.some((b) => b.kind === 'quote'),
        `${q}: ${JSON.stringify(answer.grounding.quotes)} ${answer.content_blocks.map((b) => b.kind).join(',')}`,
      ).toBe(true);
    }
  });

  it("zoe's renewals only, when the question names her", async () => {
    const { answer } = await ask("which of zoe's renewals look risky");
    expect(answer.interpretation?.analysis).toBe('renewal_risk');
    const rows = tables(answer).find((t) => t.title === 'Open renewals, at risk first')!.data;
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((r) => r.owner_email === 'zoe.kim@brightwave.io')).toBe(true);
  });

  it('"did any champions leave this year?" is answered by champion changes, verified, with the left ones counted', async () => {
    const [truth] = await queryRows<{ n: number }>(
      h.database.db,
      sql`select count(*)::int as n from deal_qualification where workspace_id = ${CORPUS_WORKSPACE_ID}::uuid
          and criterion = 'champion' and notes ilike '%left%' and occurred_at >= '2026-01-01' and occurred_at < '2027-01-01'`,
    );
    const { status, answer } = await ask('did any champions leave this year?');
    expect(status).toBe('complete');
    expect(answer.interpretation?.analysis).toBe('champion_changes');
    expect(answer.grounding.verified, JSON.stringify(answer.grounding)).toBe(true);
    expect(tables(answer).find((t) => t.title === 'Counts')!.data[0]).toMatchObject({ left: truth!.n });
  });

  it('"walk me through the history with acme logistics" is its account history, verified', async () => {
    const [truth] = await queryRows<{ n: number; first: string }>(
      h.database.db,
      sql`select count(*)::int as n, min(i.occurred_at)::date::text as first from interactions i join accounts a on a.id = i.account_id
          where a.workspace_id = ${CORPUS_WORKSPACE_ID}::uuid and a.name = 'Acme Logistics'
            and not exists (select 1 from excluded_interactions x where x.interaction_id = i.id)`,
    );
    const { status, answer } = await ask('walk me through the history with acme logistics');
    expect(status).toBe('complete');
    expect(answer.interpretation?.analysis).toBe('account_history');
    expect(answer.grounding.verified, JSON.stringify(answer.grounding)).toBe(true);
    expect(tables(answer).find((t) => t.title === 'At a glance')!.data[0]).toMatchObject({
      conversations: truth!.n,
      first_touch: truth!.first,
    });
    expect(answer.text).toContain(`first conversation ${truth!.first}`);
  });
  it('a history asked of a name two accounts share is one of them, and the answer names the other', async () => {
    const granites = await queryRows<{ name: string }>(
      h.database.db,
      sql`select name from accounts where workspace_id = ${CORPUS_WORKSPACE_ID}::uuid and name ilike 'granite %'
          order by name`,
    );
    expect(granites.length).toBeGreaterThan(1);
    const { status, answer } = await ask("gimme the full story on granite with every deal we've had w them");
    expect(status).toBe('complete');
    expect(answer.interpretation?.analysis).toBe('account_history');
    const [taken, ...others] = granites.map((g) => g.name);
    // The reading holds every account the name matched; the analysis ran on the one taken.
    expect(answer.interpretation?.names.accounts).toEqual(granites.map((g) => g.name));
    expect(answer.text.split('\n')[0]).toContain(taken!);
    expect(answer.text, JSON.stringify(answer.grounding)).toContain(`I took "granite" to mean **${taken}**`);
    for (const other of others) expect(answer.text).toContain(other!);
    expect(answer.grounding.verified, JSON.stringify(answer.grounding)).toBe(true);
  });
});
