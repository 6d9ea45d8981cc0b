import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Answer } from '../../functions/agents/answer.js';
import { queryRows } from '../../platform/db/port.js';
import type { LocalTransport } from '../../queues/transport/local.js';
import { CORPUS_WORKSPACE_ID } from '../support/corpus-fixture.js';
import { createHarness, openCorpusDatabase, type Harness, type SeededWorkspace } from '../support/harness.js';
import { corpusClock } from './question-set/ask.js';

/**
 * A rival named without the word "competitor", in lower case or with a typo, is read through the
 * workspace's own vocabulary: the local model learns the competitors its conversations name (the
 * competitors analysis, called only because a word was left unplaced), reads the question as that
 * analysis of the rival named, and answers with its count, which independent SQL gives too.
 */

let h: Harness;
let ws: SeededWorkspace;

/** The answer, and how many times the run called the competitors analysis (from its own events). */
async function ask(input: string): Promise<{ answer: Answer; competitorCalls: number }> {
  const res = await h.request('POST', '/chat', { key: ws.editor.key, body: { input } });
  expect(res.status, res.text).toBe(202);
  await (h.services.queue as LocalTransport).drain();
  const runId = res.body.data.run_id as string;
  const run = (await h.request('GET', `/chat/runs/${runId}`, { key: ws.viewer.key })).body.data;
  expect(run.status).toBe('complete');
  const [calls] = await queryRows<{ n: number }>(
    h.database.db,
    sql`select count(*)::int as n from run_events
        where run_id = ${runId}::uuid and type = 'tool.completed' and data ->> 'tool' = 'analyses_competitors'`,
  );
  return { answer: run.answer as Answer, competitorCalls: calls!.n };
}

/** Conversations that name the rival anywhere (title, summary, body or a turn) in [from, to). */
async function mentions(name: string, from: string, to: string): Promise<number> {
  const [row] = await queryRows<{ n: number }>(
    h.database.db,
    sql`select count(*)::int as n from interactions i
        where i.workspace_id = ${CORPUS_WORKSPACE_ID}::uuid and i.occurred_at >= ${from}::date and i.occurred_at < ${to}::date
          and not exists (select 1 from excluded_interactions x where x.interaction_id = i.id)
          and (concat_ws(' ', i.title, i.summary, i.body) ~* ${name}
               or exists (select 1 from transcript_turns t where t.interaction_id = i.id and t.text ~* ${name}))`,
  );
  return row!.n;
}

beforeAll(async () => {
  h = await createHarness({ database: await openCorpusDatabase(), clock: corpusClock });
  ws = await h.corpusWorkspace();
}, 120_000);
afterAll(async () => {
  await h.close();
  await h.database.close();
});

describe('a rival named as the conversations name it', () => {
  it('"how many convos mention pipewel this year" counts the conversations naming Pipewell in 2026', async () => {
    const { answer, competitorCalls } = await ask('how many convos mention pipewel this year');
    // Once to learn the rivals, once to answer.
    expect(competitorCalls).toBe(2);
    expect(answer.interpretation?.analysis).toBe('competitors');
    expect(answer.interpretation?.names.competitors).toEqual(['Pipewell']);
    expect(answer.grounding.verified, JSON.stringify(answer.grounding)).toBe(true);
    const table = answer.content_blocks.find((b) => b.kind === 'table');
    const row = table?.kind === 'table' ? table.data.find((r) => r.competitor === 'Pipewell') : undefined;
    const truth = await mentions('pipewell', '2026-01-01', '2027-01-01');
    expect(truth).toBeGreaterThan(0);
    expect(row?.conversations).toBe(truth);
    expect(answer.text).toContain(String(truth));
  });

  it('a question whose every word is placed never pays for learning the rivals', async () => {
    const { answer, competitorCalls } = await ask('how many deals did we win last quarter?');
    expect(answer.interpretation?.analysis).toBe('records');
    expect(competitorCalls).toBe(0);
  });
});
