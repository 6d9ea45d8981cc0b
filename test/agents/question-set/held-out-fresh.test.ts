import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PgliteHandle } from '../../../platform/db/pglite.js';
import { openCorpusDatabase } from '../../support/harness.js';
import { DEVELOPED_ON_HELD_OUT, HELD_OUT } from './held-out.js';
import { WRITTEN_FRESH as HELD_OUT_FRESH } from './held-out-fresh.js';
import { sqlOver, type Sql } from './judge.js';

/**
 * The fresh held-out questions stay a fair measurement: every analysis the set promises has enough
 * phrasings, none repeats a wording of held-out.ts, and every truth is well defined on the corpus (a
 * list to name is not empty, a number to find is not 0, nothing that must be absent is part of a
 * name that must appear), so no question can be answered right vacuously. It asks nothing of the
 * chat; held-out.eval.ts does that.
 */

const AT_LEAST: Record<string, number> = {
  pipeline: 8,
  win_rate: 8,
  weighted_pipeline: 8,
  activity_count: 8,
  absent_subject: 3,
  follow_up: 3,
  multi_part: 3,
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

describe('the fresh held-out questions', () => {
  it('cover every promised analysis with enough phrasings, in wordings of their own', () => {
    expect(HELD_OUT_FRESH.length).toBeGreaterThanOrEqual(60);
    const count = (shapes: string[]) => HELD_OUT_FRESH.filter((q) => shapes.includes(q.shape)).length;
    for (const [shape, least] of Object.entries(AT_LEAST)) expect(count([shape]), shape).toBeGreaterThanOrEqual(least);
    expect(count(['slipped', 'closing_window'])).toBeGreaterThanOrEqual(8);
    expect(HELD_OUT_FRESH.filter((q) => q.shape === 'follow_up').every((q) => (q.thread ?? []).length > 0)).toBe(true);

    const older = new Set([...HELD_OUT, ...DEVELOPED_ON_HELD_OUT].map((q) => q.ask.trim().toLowerCase()));
    const asks = HELD_OUT_FRESH.map((q) => `${(q.thread ?? []).join(' / ')} → ${q.ask}`.toLowerCase());
    expect(HELD_OUT_FRESH.filter((q) => older.has(q.ask.trim().toLowerCase())).map((q) => q.ask)).toEqual([]);
    expect(new Set(asks).size).toBe(asks.length);
  });

  it('have truths that are well defined on the corpus', async () => {
    const problems: string[] = [];
    for (const q of HELD_OUT_FRESH) {
      const e = q.expect;
      const mentions = (await e.mentions?.(sql)) ?? [];
      const some = await e.mentionsSome?.(sql);
      const numbers = (await e.numbers?.(sql)) ?? [];
      const absent = (await e.absent?.(sql)) ?? [];
      if (!e.mentions && !e.mentionsSome && !e.numbers && !e.says) problems.push(`${q.ask}: expects nothing`);
      if (e.mentions && (mentions.length === 0 || mentions.some((m) => m.trim() === '')))
        problems.push(`${q.ask}: an empty name to mention`);
      if (some && some.length === 0) problems.push(`${q.ask}: nothing in mentionsSome`);
      if (e.numbers && (numbers.length === 0 || numbers.some((n) => !Number.isFinite(n) || n === 0)))
        problems.push(`${q.ask}: a number that is 0 or not a number (${numbers.join(', ')})`);
      if (e.absent && absent.length === 0) problems.push(`${q.ask}: an absent list that is empty`);
      for (const a of absent)
        if ([...mentions, ...(some ?? [])].some((m) => m.toLowerCase().includes(a.toLowerCase())))
          problems.push(`${q.ask}: "${a}" must be both absent and named`);
    }
    expect(problems).toEqual([]);
  }, 60_000);
});
