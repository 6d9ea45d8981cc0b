import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { competitorsNamedIn } from '../../functions/agents/index.js';
import { judgeQuotes } from '../../functions/agents/relevance.js';
import { ReadMemo } from '../../functions/read-memo.js';
import type { PgliteHandle } from '../../platform/db/pglite.js';
import { CORPUS_WORKSPACE_ID } from '../support/corpus-fixture.js';
import { openDatabaseCopy } from '../support/database-copies.js';

/**
 * The competitors a workspace's conversations name are a read of every conversation (a slice per
 * statement). An answer's verification needs them twice (the competitors analysis it re-runs, the
 * judgement of its quotes): with the request's or stage's memo they are read once. Counted at the
 * database port.
 */

let database: PgliteHandle;
let statements = 0;

beforeAll(async () => {
  database = await openDatabaseCopy(inject('corpusTemplateDir'), inject('databaseCopiesDir'), {
    onQuery: () => statements++,
  });
}, 120_000);
afterAll(async () => database.close());

async function counted<T>(read: () => Promise<T>): Promise<{ value: T; statements: number }> {
  const before = statements;
  const value = await read();
  return { value, statements: statements - before };
}

describe('the competitors named in a workspace', () => {
  it('are read once per memo, however many callers ask, and again under a new memo', async () => {
    const bare = await counted(() => competitorsNamedIn(database.db, CORPUS_WORKSPACE_ID));
    expect(bare.value.length).toBeGreaterThan(0);
    // A read of every conversation, a slice at a time: many statements, not a test of nothing.
    expect(bare.statements).toBeGreaterThan(5);

    const memo = new ReadMemo();
    const first = await counted(() => competitorsNamedIn(database.db, CORPUS_WORKSPACE_ID, memo));
    expect(first.value).toEqual(bare.value);
    expect(first.statements).toBe(bare.statements);
    // A quote naming no competitor word, judged against a competitors question: the judgement needs the names.
    const rival = bare.value[0]!;
    const judged = await counted(() =>
      judgeQuotes(
        database.db,
        CORPUS_WORKSPACE_ID,
        'What do buyers say about competitors?',
        [
          {
            kind: 'quote',
            text: `Honestly we have been looking at ${rival} for the reporting piece.`,
            source: {
              interaction_id: '00000000-0000-7000-8000-000000000001',
              turn_id: null,
              speaker: null,
              occurred_at: null,
              account: null,
              deal: null,
              side: 'external',
            },
            stance: 'supports',
          },
        ] as never,
        () => true,
        memo,
      ),
    );
    expect(judged.value?.offTopic.size).toBe(0);
    const again = await counted(() => competitorsNamedIn(database.db, CORPUS_WORKSPACE_ID, memo));
    expect(again.value).toEqual(bare.value);
    // The judgement read the topic's names only (a statement or two), never the conversations again.
    expect(judged.statements + again.statements).toBeLessThan(bare.statements);
    expect(again.statements).toBe(0);

    const fresh = await counted(() => competitorsNamedIn(database.db, CORPUS_WORKSPACE_ID, new ReadMemo()));
    expect(fresh.statements).toBe(bare.statements);
  });

  it('are never shared across workspaces through one memo', async () => {
    const memo = new ReadMemo();
    await competitorsNamedIn(database.db, CORPUS_WORKSPACE_ID, memo);
    const other = await competitorsNamedIn(database.db, '00000000-0000-7000-8000-0000000000ff', memo);
    expect(other).toEqual([]);
  });
});
