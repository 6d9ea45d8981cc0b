import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Answer } from '../../functions/agents/answer.js';
import { loadTokenizer } from '../../functions/agents/understanding/tokens.js';
import { queryRows } from '../../platform/db/port.js';
import type { LocalTransport } from '../../queues/transport/local.js';
import { CORPUS_WORKSPACE_ID } from '../support/corpus-fixture.js';
import { createHarness, openCorpusDatabase, type Harness, type SeededWorkspace } from '../support/harness.js';
import { corpusClock } from './question-set/ask.js';

/**
 * Talk-ratio questions through POST /chat with the local model: the reader names the analysis with
 * the period, people, kinds and order the words give, the local policy calls `analyses.talk_ratio` as a
 * tool, and the answer is its table, verified. Each figure is checked against independent SQL.
 */

let h: Harness;
let ws: SeededWorkspace;

beforeAll(async () => {
  await loadTokenizer();
  h = await createHarness({ database: await openCorpusDatabase(), clock: corpusClock });
  ws = await h.corpusWorkspace();
}, 120_000);
afterAll(async () => {
  await h.close();
  await h.database.close();
});

async function ask(input: string): Promise<Answer> {
  const res = await h.request('POST', '/chat', { key: ws.editor.key, body: { input } });
  expect(res.status, res.text).toBe(202);
  await (h.services.queue as LocalTransport).drain();
  const run = (await h.request('GET', `/chat/runs/${res.body.data.run_id}`, { key: ws.viewer.key })).body.data;
  expect(run.status, JSON.stringify(run.error)).toBe('complete');
  return run.answer as Answer;
}

type Share = { rep_email: string; share: number };

/** Each rep's share of the seconds spoken in their conversations, by SQL written apart from the analysis. */
async function shares(where: string): Promise<Share[]> {
  return queryRows<Share>(
    h.database.db,
    sql.raw(`
      with spoken as (
        select t.interaction_id, lower(t.speaker_email) as email, t.side, t.ended_at_seconds - t.started_at_seconds as secs
        from transcript_turns t join interactions i on i.id = t.interaction_id
        where t.workspace_id = '${CORPUS_WORKSPACE_ID}' and ${where}
          and not exists (select 1 from excluded_interactions x where x.interaction_id = i.id))
      select r.email as rep_email,
             round((100 * sum(r.secs) / sum((select sum(s.secs) from spoken s where s.interaction_id = r.interaction_id)))::numeric, 1)::float8 as share
      from (select interaction_id, email, sum(secs) as secs from spoken where side = 'internal' and email is not null group by 1, 2) r
      group by 1 order by share desc, rep_email`),
  );
}

const tableOf = (a: Answer) => {
  const t = a.content_blocks.find((b) => b.kind === 'table');
  if (t?.kind !== 'table') throw new Error(`no table in: ${a.text}`);
  return t.data as { rep_email: string; talk_share_pct: number }[];
};

describe('talk ratio through chat', () => {
  it('each rep in a quarter, ranked, verified', async () => {
    const a = await ask("what's the talk share for each rep in Q3?");
    expect(a.interpretation?.analysis).toBe('talk_ratio');
    expect(a.grounding.verified, JSON.stringify(a.grounding.checks)).toBe(true);
    const truth = await shares(
      `i.kind in ('call', 'meeting') and i.occurred_at >= '2026-07-01' and i.occurred_at < '2026-10-01'`,
    );
    expect(tableOf(a).map((r) => [r.rep_email, r.talk_share_pct])).toEqual(truth.map((t) => [t.rep_email, t.share]));
    expect(a.text).toContain('from 2026-07-01, before 2026-10-01');
  });

  it('the least talkative rep on calls, and the best listener read as the same order', async () => {
    const truth = await shares(`i.kind = 'call'`);
    const least = await ask('which rep speaks the least on calls');
    expect(least.interpretation?.analysis).toBe('talk_ratio');
    expect(tableOf(least)[0]!.rep_email).toBe(truth.at(-1)!.rep_email);
    const listener = await ask('who is the best listener on the team?');
    expect(listener.interpretation?.analysis).toBe('talk_ratio');
    const all = await shares(`i.kind in ('call', 'meeting')`);
    expect(tableOf(listener)[0]!.rep_email).toBe(all.at(-1)!.rep_email);
  });

  it('one rep named, on meetings this year', async () => {
    const a = await ask('Rhea Okafor talk time on meetings this year');
    expect(a.interpretation?.analysis).toBe('talk_ratio');
    const truth = await shares(`i.kind = 'meeting' and i.occurred_at >= '2026-01-01' and i.occurred_at < '2027-01-01'`);
    const rhea = truth.find((t) => t.rep_email.startsWith('rhea.'))!;
    expect(tableOf(a)).toHaveLength(1);
    expect(tableOf(a)[0]!.talk_share_pct).toBe(rhea.share);
    expect(a.grounding.verified).toBe(true);
  });

  it('a limit, and a first name written in lower case as a possessive', async () => {
    const top = await ask('top 3 reps by airtime');
    expect(tableOf(top)).toHaveLength(3);
    const all = await shares(`i.kind in ('call', 'meeting')`);
    expect(tableOf(top).map((r) => r.rep_email)).toEqual(all.slice(0, 3).map((t) => t.rep_email));
    const tara = await ask("tara's talk ratio");
    expect(tableOf(tara).map((r) => r.rep_email)).toEqual(
      all.filter((t) => t.rep_email.startsWith('tara.')).map((t) => t.rep_email),
    );
  });

  it('talking about something is what was said, not a talk ratio', async () => {
    const a = await ask('what do customers talk about most when pricing comes up?');
    expect(a.interpretation?.analysis).not.toBe('talk_ratio');
  });
});
