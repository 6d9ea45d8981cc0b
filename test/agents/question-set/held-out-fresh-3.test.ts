import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PgliteHandle } from '../../../platform/db/pglite.js';
import { openCorpusDatabase } from '../../support/harness.js';
import { DEVELOPED_ON_HELD_OUT, HELD_OUT, h } from './held-out.js';
import { WRITTEN_FRESH } from './held-out-fresh.js';
import { WRITTEN_FRESH_2 } from './held-out-fresh-2.js';
import { WRITTEN_FRESH_3 } from './held-out-fresh-3.js';
import { sqlOver, type Sql } from './judge.js';
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

    // Compared as words alone: a wording does not become new by a question mark or a capital.
    const words = (ask: string) =>
      ask
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, ' ')
        .trim();
    const older = new Set(
      [...QUESTIONS, ...HELD_OUT, ...DEVELOPED_ON_HELD_OUT, ...WRITTEN_FRESH, ...WRITTEN_FRESH_2].flatMap((q) =>
        [...(q.thread ?? []), q.ask].map(words),
      ),
    );
    const mine = WRITTEN_FRESH_3.flatMap((q) => [...(q.thread ?? []), q.ask]);
    expect(mine.filter((ask) => older.has(words(ask)))).toEqual([]);
    const asks = WRITTEN_FRESH_3.map((q) => `${(q.thread ?? []).join(' / ')} → ${q.ask}`.toLowerCase());
    expect(new Set(asks).size).toBe(asks.length);
  });

  it('have truths that are well defined on the corpus', async () => {
    const problems: string[] = [];
    for (const q of WRITTEN_FRESH_3) {
      const e = q.expect;
      const mentions = (await e.mentions?.(sql)) ?? [];
      const some = await e.mentionsSome?.(sql);
      const each = await e.mentionsEach?.(sql);
      const ordered = await e.ordered?.(sql);
      const numbers = (await e.numbers?.(sql)) ?? [];
      const absent = (await e.absent?.(sql)) ?? [];
      if (
        !e.mentions &&
        !e.mentionsSome &&
        !e.mentionsEach &&
        !e.ordered &&
        !e.numbers &&
        !e.says &&
        e.quotes !== 'required'
      )
        problems.push(`${q.ask}: expects nothing`);
      if (e.mentions && (mentions.length === 0 || mentions.some((m) => m.trim() === '')))
        problems.push(`${q.ask}: an empty name to mention`);
      if (some && some.length === 0) problems.push(`${q.ask}: nothing in mentionsSome`);
      if (
        each &&
        (each.length === 0 || each.some((forms) => forms.length === 0 || forms.some((f) => /^(0|NaN)/.test(f))))
      )
        problems.push(`${q.ask}: an empty or zero figure in mentionsEach`);
      if (each && new Set(each.map((forms) => forms[0])).size !== each.length)
        problems.push(`${q.ask}: two figures asked are equal`);
      // A ranking of fewer than two items, or with one item twice, says nothing about order.
      if (ordered && (ordered.length < 2 || ordered.some((forms) => forms.length === 0)))
        problems.push(`${q.ask}: a ranking of fewer than two items`);
      if (ordered && new Set(ordered.map((forms) => forms[0])).size !== ordered.length)
        problems.push(`${q.ask}: an item ranked twice`);
      if (e.numbers && (numbers.length === 0 || numbers.some((n) => !Number.isFinite(n) || n === 0)))
        problems.push(`${q.ask}: a number that is 0 or not a number (${numbers.join(', ')})`);
      if (new Set(numbers).size !== numbers.length)
        problems.push(`${q.ask}: two figures asked are equal (${numbers.join(', ')})`);
      if (e.absent && absent.length === 0) problems.push(`${q.ask}: an absent list that is empty`);
      for (const a of absent)
        if (
          [...mentions, ...(some ?? []), ...(each ?? []).flat(), ...(ordered ?? []).flat()].some((m) =>
            m.toLowerCase().includes(a.toLowerCase()),
          )
        )
          problems.push(`${q.ask}: "${a}" must be both absent and named`);
      if (e.quotes === 'required') {
        const accounts = (await e.quoteAccounts?.(sql)) ?? [];
        if (!e.topic || accounts.length === 0) problems.push(`${q.ask}: quotes without a topic or a segment`);
        else if ((await h.turnsOn(sql, e.topic, accounts)) === 0)
          problems.push(`${q.ask}: the account never spoke on the topic`);
      }
      if (process.env.SHOW_TRUTHS)
        console.log(JSON.stringify({ ask: q.ask, mentions, some, each, ordered, numbers, absent }));
    }
    expect(problems).toEqual([]);
  }, 120_000);
});
