import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PgliteHandle } from '../../../platform/db/pglite.js';
import { openCorpusDatabase } from '../../support/harness.js';
import { DEVELOPED_ON_HELD_OUT, HELD_OUT } from './held-out.js';
import { WRITTEN_FRESH } from './held-out-fresh.js';
import { WRITTEN_FRESH_2 } from './held-out-fresh-2.js';
import { WRITTEN_FRESH_3 } from './held-out-fresh-3.js';
import { ABSENT_SUBJECTS, WRITTEN_FRESH_4 } from './held-out-fresh-4.js';
import { ABSENT_SUBJECTS_5, WRITTEN_FRESH_5 } from './held-out-fresh-5.js';
import { ABSENT_SUBJECTS_6, HELD_OUT_FRESH_6, WRITTEN_FRESH_6 } from './held-out-fresh-6.js';
import { sqlOver, type Sql } from './judge.js';
import { repeatedWordings, truthProblems } from './well-defined.js';
import { QUESTIONS } from './questions.js';

/**
 * The sixth fresh held-out set stays a fair measurement: every analysis it promises has enough
 * phrasings of its own (feature requests most of all), so do the follow-ups, the absent subjects and
 * the needs outside that list; none of its wordings repeats one of another set (the dev set, the
 * held-out set and the five fresh sets, as written); and every truth is well defined on the corpus (a
 * list to name or to rank is not empty, a number to find is not 0 nor equal to another number of the
 * same question, nothing that must be absent is part of a name that must appear, an account whose
 * words are asked for has said something on the topic, and a subject said to be absent is named
 * nowhere in the corpus), so no question can be answered right vacuously. It asks nothing of the
 * chat; held-out.eval.ts does that.
 */

const AT_LEAST: Record<string, number> = {
  feature_requests: 10,
  competitors: 5,
  renewal_risk: 5,
  champion_change: 5,
  account_history: 5,
  what_changed: 4,
  talk_ratio: 5,
  quiet: 5,
  lost_reasons: 5,
  pipeline: 5,
  win_rate: 5,
  quotes: 5,
  follow_up: 5,
  absent_subject: 5,
};
/** Needs outside the promised list, each a shape of its own, answerable from the corpus. */
const OTHER_NEEDS = [
  'activity_count',
  'account_owner',
  'call_length',
  'busiest_account',
  'buyer_roles',
  'meeting_count',
  'unanswered_email',
];

let db: PgliteHandle;
let sql: Sql;

beforeAll(async () => {
  db = await openCorpusDatabase();
  sql = sqlOver(db.client);
}, 60_000);
afterAll(async () => {
  await db.close();
});

describe('the sixth fresh held-out questions', () => {
  it('cover every promised analysis with enough phrasings, in wordings of their own', () => {
    expect(WRITTEN_FRESH_6.length).toBeGreaterThanOrEqual(70);
    expect(WRITTEN_FRESH_6.length).toBeLessThanOrEqual(90);
    expect(HELD_OUT_FRESH_6).toEqual(WRITTEN_FRESH_6);
    for (const [shape, least] of Object.entries(AT_LEAST))
      expect(WRITTEN_FRESH_6.filter((q) => q.shape === shape).length, shape).toBeGreaterThanOrEqual(least);
    expect(WRITTEN_FRESH_6.filter((q) => q.shape === 'follow_up').every((q) => (q.thread ?? []).length > 0)).toBe(true);
    // Every question is of a promised shape or of a need outside the list; at least six are of the latter.
    const shapes = new Set([...Object.keys(AT_LEAST), ...OTHER_NEEDS]);
    expect(WRITTEN_FRESH_6.filter((q) => !shapes.has(q.shape)).map((q) => q.shape)).toEqual([]);
    expect(WRITTEN_FRESH_6.filter((q) => OTHER_NEEDS.includes(q.shape)).length).toBeGreaterThanOrEqual(6);

    expect(
      repeatedWordings(WRITTEN_FRESH_6, [
        ...QUESTIONS,
        ...HELD_OUT,
        ...DEVELOPED_ON_HELD_OUT,
        ...WRITTEN_FRESH,
        ...WRITTEN_FRESH_2,
        ...WRITTEN_FRESH_3,
        ...WRITTEN_FRESH_4,
        ...WRITTEN_FRESH_5,
      ]),
    ).toEqual({ ofOlder: [], withinSet: 0 });
    // Its absent subjects are asked in words of their own too, not the fourth or the fifth set's.
    expect(Object.keys(ABSENT_SUBJECTS_6).filter((ask) => ask in ABSENT_SUBJECTS || ask in ABSENT_SUBJECTS_5)).toEqual(
      [],
    );
  });

  it('have truths that are well defined on the corpus', async () => {
    expect(await truthProblems(WRITTEN_FRESH_6, sql)).toEqual([]);
  }, 120_000);

  it('ask of absent subjects the corpus names nowhere', async () => {
    expect(Object.keys(ABSENT_SUBJECTS_6).every((ask) => WRITTEN_FRESH_6.some((q) => q.ask === ask))).toBe(true);
    const named: string[] = [];
    for (const subject of Object.values(ABSENT_SUBJECTS_6)) {
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
