import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import type { AnalysisOutput } from '../../functions/analyses/analysis.js';
import { buyerQuotes, RISK_SIGNAL } from '../../functions/analyses/buyer-quotes.js';
import { ManualClock } from '../../platform/clock.js';
import { declarePacing, EMBEDDED_PACING, SERVER_PACING } from '../../platform/db/pacing.js';
import type { PgliteHandle } from '../../platform/db/pglite.js';
import { queryRows } from '../../platform/db/port.js';
import { CORPUS_NOW, CORPUS_WORKSPACE_ID } from '../support/corpus-fixture.js';
import { openDatabaseCopy } from '../support/database-copies.js';
import { createHarness, type Harness, type SeededWorkspace } from '../support/harness.js';

/**
 * The analyses that read every conversation of a workspace (renewal risk and champion changes through
 * their buyers' quotes, talk ratio, competitors, feature requests) read it a slice per statement, as
 * many interactions a slice as the database's pacing says: on the embedded database a small slice
 * (so no one statement holds the event loop for the whole corpus), on a database server one large
 * one (each statement a round trip). Counted at the database port: the slices each read found, and
 * the answer, the same under both pacings.
 */

let h: Harness;
let ws: SeededWorkspace;
let database: PgliteHandle;
const statements: string[] = [];
let interactions: number;

/** The statement that finds where a slice ends (forEachConversationSlice's index range). */
const isSliceBound = (statement: string) => /order by i\.occurred_at desc, i\.id desc offset/.test(statement);

beforeAll(async () => {
  database = await openDatabaseCopy(inject('corpusTemplateDir'), inject('databaseCopiesDir'), {
    onQuery: (statement) => statements.push(statement),
  });
  h = await createHarness({ database, clock: new ManualClock(CORPUS_NOW) });
  ws = await h.corpusWorkspace();
  const [row] = await queryRows<{ n: number }>(
    database.db,
    sql`select count(*)::int as n from interactions where workspace_id = ${CORPUS_WORKSPACE_ID}`,
  );
  interactions = row!.n;
}, 120_000);
afterAll(async () => {
  declarePacing(database.db, EMBEDDED_PACING);
  await h.close();
  await database.close();
});

async function analyse(path: string, body: unknown): Promise<{ out: AnalysisOutput; sliceBounds: number }> {
  statements.length = 0;
  const res = await h.request<{ data: AnalysisOutput }>('POST', `/analyses/${path}`, { key: ws.viewer.key, body });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return { out: res.body.data, sliceBounds: statements.filter(isSliceBound).length };
}

const CASES: [path: string, body: unknown, reads: number][] = [
  ['renewal-risk', {}, 2],
  ['champion-changes', { changes: ['left'] }, 1],
  ['talk-ratio', {}, 1],
  // Its mentions, its quotes and the names it looks for (competitorsNamedIn) are each a read.
  ['competitors', {}, 3],
];

describe('a read over every conversation', () => {
  it.each(CASES)(
    '%s reads small slices embedded and one slice per read on a server, answering the same',
    async (path, body, reads) => {
      expect(interactions).toBeGreaterThan(5 * EMBEDDED_PACING.conversationsPerSlice);
      declarePacing(database.db, EMBEDDED_PACING);
      const embedded = await analyse(path, body);
      // The calls and meetings alone (talk ratio's slices count those) are well over one slice.
      expect(embedded.sliceBounds).toBeGreaterThanOrEqual(reads * 3);

      declarePacing(database.db, SERVER_PACING);
      const server = await analyse(path, body);
      expect(interactions).toBeLessThan(SERVER_PACING.conversationsPerSlice);
      expect(server.sliceBounds).toBe(reads);
      expect(server.out).toEqual(embedded.out);
    },
  );
});

describe("buyers' quotes", () => {
  it('say how far back they read when their bound stops the read, and are the newest of every quote', async () => {
    declarePacing(database.db, EMBEDDED_PACING);
    const all = await buyerQuotes(database.db, CORPUS_WORKSPACE_ID, sql`true`, RISK_SIGNAL, 10_000);
    expect(all.readBackTo).toBeNull();
    expect(all.quotes.length).toBeGreaterThan(6);
    const few = await buyerQuotes(database.db, CORPUS_WORKSPACE_ID, sql`true`, RISK_SIGNAL, 2);
    expect(few.readBackTo).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(few.quotes).toEqual(all.quotes.slice(0, 2));
    for (const q of few.quotes) expect(q.occurred_at.slice(0, 10) >= few.readBackTo!).toBe(true);
  });
});
