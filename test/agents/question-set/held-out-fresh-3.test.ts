import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PgliteHandle } from '../../../platform/db/pglite.js';
import { openCorpusDatabase } from '../../support/harness.js';
import { DEVELOPED_ON_HELD_OUT, HELD_OUT } from './held-out.js';
import { WRITTEN_FRESH } from './held-out-fresh.js';
import { WRITTEN_FRESH_2 } from './held-out-fresh-2.js';
import { WRITTEN_FRESH_3 } from './held-out-fresh-3.js';
import { sqlOver, type Sql } from './judge.js';
import { repeatedWordings, truthProblems } from './well-defined.js';
import { QUESTIONS } from './questions.js';

/**
 * The third fresh held-out set stays a fair measurement: every analysis it promises has enough
 * phrasings, none repeats a wording of another set, and every truth is well defined on the corpus
 * (a list to name or to rank is not empty, a number to find is not 0 nor equal to another number of
 * the same question, nothing that must be absent is part of a name that must appear, and an account
 * whose words are asked for has said something on the topic), so no question can be answered right
 * vacuously. It asks nothing of the chat; held-out.eval.ts does that.
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

describe('the third fresh held-out questions', () => {
  it('cover every promised analysis with enough phrasings, in wordings of their own', () => {
    expect(WRITTEN_FRESH_3.length).toBeGreaterThanOrEqual(65);
    for (const [shape, least] of Object.entries(AT_LEAST))
      expect(WRITTEN_FRESH_3.filter((q) => q.shape === shape).length, shape).toBeGreaterThanOrEqual(least);
    expect(WRITTEN_FRESH_3.filter((q) => q.shape === 'follow_up').every((q) => (q.thread ?? []).length > 0)).toBe(true);

    expect(
      repeatedWordings(WRITTEN_FRESH_3, [
        ...QUESTIONS,
        ...HELD_OUT,
        ...DEVELOPED_ON_HELD_OUT,
        ...WRITTEN_FRESH,
        ...WRITTEN_FRESH_2,
      ]),
    ).toEqual({ ofOlder: [], withinSet: 0 });
  });

  it('have truths that are well defined on the corpus', async () => {
    expect(await truthProblems(WRITTEN_FRESH_3, sql)).toEqual([]);
  }, 120_000);
});
