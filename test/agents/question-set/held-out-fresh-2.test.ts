import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PgliteHandle } from '../../../platform/db/pglite.js';
import { openCorpusDatabase } from '../../support/harness.js';
import { h, HELD_OUT, DEVELOPED_ON_HELD_OUT } from './held-out.js';
import { WRITTEN_FRESH } from './held-out-fresh.js';
import { WRITTEN_FRESH_2 } from './held-out-fresh-2.js';
import { sqlOver, type Sql } from './judge.js';
import { QUESTIONS } from './questions.js';

/**
 * The second fresh held-out set stays a fair measurement: every analysis it promises has enough
 * phrasings, none repeats a wording of another set, and every truth is well defined on the corpus
 * (a list to name is not empty, a number to find is not 0 nor equal to another number of the same
 * question, nothing that must be absent is part of a name that must appear, and a segment asked
 * about has said something on the topic), so no question can be answered right vacuously. It asks
 * nothing of the chat; held-out.eval.ts does that.
 */

const AT_LEAST: Record<string, number> = {
  period_compare: 6,
  multi_part: 6,
  follow_up: 6,
  voice_topic: 6,
  pipeline: 6,
  win_rate: 6,
  weighted_pipeline: 6,
  absent_subject: 3,
  slipped: 3,
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

describe('the second fresh held-out questions', () => {
  it('cover every promised analysis with enough phrasings, in wordings of their own', () => {
    expect(WRITTEN_FRESH_2.length).toBeGreaterThanOrEqual(50);
    for (const [shape, least] of Object.entries(AT_LEAST))
      expect(WRITTEN_FRESH_2.filter((q) => q.shape === shape).length, shape).toBeGreaterThanOrEqual(least);
    expect(WRITTEN_FRESH_2.filter((q) => q.shape === 'follow_up').every((q) => (q.thread ?? []).length > 0)).toBe(true);

    const older = new Set(
      [...QUESTIONS, ...HELD_OUT, ...DEVELOPED_ON_HELD_OUT, ...WRITTEN_FRESH].map((q) => q.ask.trim().toLowerCase()),
    );
    expect(WRITTEN_FRESH_2.filter((q) => older.has(q.ask.trim().toLowerCase())).map((q) => q.ask)).toEqual([]);
    const asks = WRITTEN_FRESH_2.map((q) => `${(q.thread ?? []).join(' / ')} → ${q.ask}`.toLowerCase());
    expect(new Set(asks).size).toBe(asks.length);
  });

  it('have truths that are well defined on the corpus', async () => {
    const problems: string[] = [];
    for (const q of WRITTEN_FRESH_2) {
      const e = q.expect;
      const mentions = (await e.mentions?.(sql)) ?? [];
      const some = await e.mentionsSome?.(sql);
      const each = await e.mentionsEach?.(sql);
      const numbers = (await e.numbers?.(sql)) ?? [];
      const absent = (await e.absent?.(sql)) ?? [];
      if (!e.mentions && !e.mentionsSome && !e.mentionsEach && !e.numbers && !e.says && e.quotes !== 'required')
        problems.push(`${q.ask}: expects nothing`);
      if (e.mentions && (mentions.length === 0 || mentions.some((m) => m.trim() === '')))
        problems.push(`${q.ask}: an empty name to mention`);
      if (some && some.length === 0) problems.push(`${q.ask}: nothing in mentionsSome`);
      if (each && (each.length === 0 || each.some((forms) => forms.length === 0 || forms.includes('0%'))))
        problems.push(`${q.ask}: an empty or zero figure in mentionsEach`);
      if (e.numbers && (numbers.length === 0 || numbers.some((n) => !Number.isFinite(n) || n === 0)))
        problems.push(`${q.ask}: a number that is 0 or not a number (${numbers.join(', ')})`);
      if (new Set(numbers).size !== numbers.length)
        problems.push(`${q.ask}: two figures asked are equal (${numbers.join(', ')})`);
      if (each && new Set(each.map((forms) => forms[0])).size !== each.length)
        problems.push(`${q.ask}: two shares asked are equal`);
      if (e.absent && absent.length === 0) problems.push(`${q.ask}: an absent list that is empty`);
      for (const a of absent)
        if (
          [...mentions, ...(some ?? []), ...(each ?? []).flat()].some((m) => m.toLowerCase().includes(a.toLowerCase()))
        )
          problems.push(`${q.ask}: "${a}" must be both absent and named`);
      if (e.quotes === 'required') {
        const accounts = (await e.quoteAccounts?.(sql)) ?? [];
        if (!e.topic || accounts.length === 0) problems.push(`${q.ask}: quotes without a topic or a segment`);
        else if ((await h.turnsOn(sql, e.topic, accounts)) === 0)
          problems.push(`${q.ask}: the segment never spoke on the topic`);
      }
      if (process.env.SHOW_TRUTHS) console.log(JSON.stringify({ ask: q.ask, mentions, some, each, numbers, absent }));
    }
    expect(problems).toEqual([]);
  }, 60_000);
});
