import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PgliteHandle } from '../../../platform/db/pglite.js';
import { openCorpusDatabase } from '../../support/harness.js';
import { DEVELOPED_ON_HELD_OUT, HELD_OUT } from './held-out.js';
import { WRITTEN_FRESH } from './held-out-fresh.js';
import { WRITTEN_FRESH_2 } from './held-out-fresh-2.js';
import { HELD_OUT_FRESH_3 } from './held-out-fresh-3.js';
import { ABSENT_SUBJECTS, DEVELOPED_ON_FRESH_4, HELD_OUT_FRESH_4, WRITTEN_FRESH_4 } from './held-out-fresh-4.js';
import { sqlOver, type Sql } from './judge.js';
import { repeatedWordings, truthProblems } from './well-defined.js';
import { QUESTIONS } from './questions.js';

/**
 * The fourth fresh held-out set stays a fair measurement: every analysis it promises has enough
 * phrasings, none repeats a wording of another set, and every truth is well defined on the corpus
 * (a list to name or to rank is not empty, a number to find is not 0 nor equal to another number of
 * the same question, nothing that must be absent is part of a name that must appear, an account
 * whose words are asked for has said something on the topic, and a subject said to be absent is
 * named nowhere in the corpus), so no question can be answered right vacuously. It asks nothing of
 * the chat; held-out.eval.ts does that.
 */

const AT_LEAST: Record<string, number> = {
  talk_ratio: 6,
  feature_requests: 6,
  renewal_risk: 6,
  champion_change: 6,
  account_history: 6,
  competitors: 6,
  quiet: 6,
  lost_reasons: 6,
  pipeline: 6,
  win_rate: 6,
  follow_up: 3,
  absent_subject: 3,
};

let db: PgliteHandle;
let sql: Sql;

beforeAll(async () => {
  db = await openCorpusDatabase();
  sql = sqlOver(db.client);
}, 60_000);
afterAll(async () => {
  await db.close();
});

describe('the fourth fresh held-out questions', () => {
  it('cover every promised analysis with enough phrasings, in wordings of their own', () => {
    expect(WRITTEN_FRESH_4.length).toBeGreaterThanOrEqual(70);
    for (const [shape, least] of Object.entries(AT_LEAST))
      expect(WRITTEN_FRESH_4.filter((q) => q.shape === shape).length, shape).toBeGreaterThanOrEqual(least);
    expect(WRITTEN_FRESH_4.filter((q) => q.shape === 'follow_up').every((q) => (q.thread ?? []).length > 0)).toBe(true);

    expect(
      repeatedWordings(WRITTEN_FRESH_4, [
        ...QUESTIONS,
        ...HELD_OUT,
        ...DEVELOPED_ON_HELD_OUT,
        ...WRITTEN_FRESH,
        ...WRITTEN_FRESH_2,
        ...HELD_OUT_FRESH_3,
      ]),
    ).toEqual({ ofOlder: [], withinSet: 0 });
  });

  it('count the three questions the developer has seen as dev, and only those', () => {
    expect(DEVELOPED_ON_FRESH_4.map((q) => q.ask).sort()).toEqual([
      'how much did we spend on linkedin ads last month',
      'reps ordered by talk share, lowest to highest',
      'whats the total on those in EUR',
    ]);
    expect(
      DEVELOPED_ON_FRESH_4.find((q) => q.ask === 'whats the total on those in EUR')?.thread?.length,
    ).toBeGreaterThan(0);
    expect(HELD_OUT_FRESH_4.length + DEVELOPED_ON_FRESH_4.length).toBe(WRITTEN_FRESH_4.length);
  });

  it('have truths that are well defined on the corpus', async () => {
    expect(await truthProblems(WRITTEN_FRESH_4, sql)).toEqual([]);
  }, 120_000);

  it('ask of absent subjects the corpus names nowhere', async () => {
    expect(Object.keys(ABSENT_SUBJECTS).every((ask) => WRITTEN_FRESH_4.some((q) => q.ask === ask))).toBe(true);
    const named: string[] = [];
    for (const subject of Object.values(ABSENT_SUBJECTS)) {
      const re = `\\m(${subject})\\M`;
      const [row] = await sql<{ n: number }>(
        `select (select count(*) from interactions i where i.workspace_id = $1
                   and concat_ws(' ', i.title, i.summary, i.body) ~* $2)
              + (select count(*) from transcript_turns t where t.workspace_id = $1 and t.text ~* $2)
              + (select count(*) from accounts a where a.workspace_id = $1 and a.name ~* $2) as n`,
        [re],
      );
      if (Number(row?.n) > 0) named.push(subject);
    }
    expect(named).toEqual([]);
  }, 60_000);
});
