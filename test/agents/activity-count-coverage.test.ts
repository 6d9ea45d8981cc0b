import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Answer } from '../../functions/agents/answer.js';
import { queryRows } from '../../platform/db/port.js';
import type { LocalTransport } from '../../queues/transport/local.js';
import { CORPUS_WORKSPACE_ID } from '../support/corpus-fixture.js';
import { createHarness, openCorpusDatabase, type Harness, type SeededWorkspace } from '../support/harness.js';
import { corpusClock } from './question-set/ask.js';

/**
 * A count of conversations never drops a word of the question in silence: a word it could not narrow
 * the count by ("how many calls mentioned onboarding") is named in the answer, which says the figure
 * counts every such conversation; a question whose every word was placed carries no such line.
 */

let h: Harness;
let ws: SeededWorkspace;

async function ask(input: string): Promise<Answer> {
  const res = await h.request('POST', '/chat', { key: ws.editor.key, body: { input } });
  expect(res.status, res.text).toBe(202);
  await (h.services.queue as LocalTransport).drain();
  const run = (await h.request('GET', `/chat/runs/${res.body.data.run_id}`, { key: ws.viewer.key })).body.data;
  expect(run.status).toBe('complete');
  return run.answer as Answer;
}

beforeAll(async () => {
  h = await createHarness({ database: await openCorpusDatabase(), clock: corpusClock });
  ws = await h.corpusWorkspace();
}, 120_000);
afterAll(async () => {
  await h.close();
  await h.database.close();
});

describe('a count says which words it could not use', () => {
  it('"how many calls mentioned onboarding last month" names "onboarding" as not used', async () => {
    const answer = await ask('how many calls mentioned onboarding last month');
    const [row] = await queryRows<{ n: number }>(
      h.database.db,
      sql`select count(*)::int as n from interactions i where i.workspace_id = ${CORPUS_WORKSPACE_ID}::uuid
          and i.kind = 'call' and i.occurred_at >= '2026-10-01' and i.occurred_at < '2026-11-01'
          and not exists (select 1 from excluded_interactions x where x.interaction_id = i.id)`,
    );
    expect(answer.text).toContain('I could not narrow this count by "onboarding"');
    expect(answer.text).toContain(`**${row!.n}** calls last month`);
    expect(answer.grounding.verified, JSON.stringify(answer.grounding)).toBe(true);
  });

  it('a count whose every word was placed says nothing of the kind', async () => {
    const answer = await ask('How many interactions did we have this quarter?');
    expect(answer.text).not.toContain('could not narrow');
  });
});
