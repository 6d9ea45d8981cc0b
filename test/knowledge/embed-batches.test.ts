import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { EMBED_BATCH } from '../../functions/knowledge/ingest-pipeline.js';
import { pacingOf } from '../../platform/db/pacing.js';
import type { LocalTransport } from '../../queues/transport/local.js';
import { loadRun } from '../../queues/run-store.js';
import { createHarness, type Harness, type SeededWorkspace } from '../support/harness.js';
import { uploadFile } from './files.js';

/**
 * The embed stage reads a bounded batch of a document's nodes per statement, whatever the
 * document's size: an embedded database runs a statement on the event loop, so a statement that
 * reads every node of a large document (to find the first ones without a vector) holds every other
 * request for seconds, once per batch. Every statement the stage sent is run again under EXPLAIN
 * ANALYZE once the document is embedded (the state in which a "first nodes without a vector" read
 * must pass over all of them), and the rows it read from knowledge_nodes are counted.
 */

let h: Harness;
let ws: SeededWorkspace;

beforeAll(async () => {
  h = await createHarness();
  ws = await h.seedWorkspace();
});
afterAll(async () => h?.close());

interface Logged {
  sql: string;
  params: unknown[];
}

/** The statements drizzle sends from here on (its session's logger sees each one with its parameters). */
function logStatements(refuse?: (statement: Logged) => boolean): { logged: Logged[]; stop(): void } {
  const session = (h.database.db as unknown as { session: { logger: unknown } }).session;
  const before = session.logger;
  const logged: Logged[] = [];
  session.logger = {
    logQuery: (query: string, params: unknown[]) => {
      const statement = { sql: query, params };
      // drizzle logs a statement before it sends it: a throw here is the database failing it.
      if (refuse?.(statement)) throw new Error('the database went away (test)');
      logged.push(statement);
    },
  };
  return {
    logged,
    stop() {
      session.logger = before;
    },
  };
}

interface PlanNode {
  'Relation Name'?: string;
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  Plans?: PlanNode[];
}

/** Rows the plan read from `table`, over every scan of it. */
const rowsReadFrom = (node: PlanNode, table: string): number =>
  (node['Relation Name'] === table ? (node['Actual Rows'] ?? 0) * (node['Actual Loops'] ?? 1) : 0) +
  (node.Plans ?? []).reduce((sum, child) => sum + rowsReadFrom(child, table), 0);

async function explainRows(statement: Logged, table: string): Promise<number> {
  const client = (
    h.database.db as unknown as {
      $client: { query(text: string, params: unknown[]): Promise<{ rows: Record<string, unknown>[] }> };
    }
  ).$client;
  const result = await client.query(`explain (analyze, format json) ${statement.sql}`, statement.params);
  const cell = Object.values(result.rows[0] ?? {})[0];
  const plan = (typeof cell === 'string' ? JSON.parse(cell) : cell) as { Plan: PlanNode }[];
  return rowsReadFrom(plan[0]!.Plan, table);
}

/** Upload a text of `paragraphs` and wait for its ingest run to end. */
async function ingest(paragraphs: readonly string[], name: string): Promise<string> {
  const writer = (await ws.keyFor(ws.editor, 'internal_agent')).key;
  const res = await uploadFile(h, '/knowledge-base', writer, {
    bytes: new TextEncoder().encode(paragraphs.join('\n\n')),
    name,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  const runId: string = res.body.data.run_id;
  for (const deadline = Date.now() + 120_000; ; ) {
    await (h.services.queue as LocalTransport).drain();
    const run = await loadRun(h.services.db, runId);
    if (run && ['complete', 'failed', 'canceled'].includes(run.status)) return runId;
    if (Date.now() > deadline) throw new Error('the ingest run did not end');
    await new Promise((r) => setTimeout(r, 50));
  }
}

const isVectorInsert = (s: Logged) => /^insert into "knowledge_node_vectors"/.test(s.sql);
/** Rows of a multi-row insert: drizzle writes one parenthesised tuple of placeholders per row. */
const rowsOf = (s: Logged) => (s.sql.match(/\(\$\d+|\(default/g) ?? []).length;

describe('embedding a document', () => {
  it("writes a delivery's vectors a few per statement, and resumes cleanly when one fails midway", async () => {
    const perInsert = pacingOf(h.database.db).vectorsPerInsert;
    expect(perInsert).toBeLessThan(EMBED_BATCH);
    const paragraphs = Array.from(
      { length: EMBED_BATCH + 21 },
      (_, i) =>
        `Clause ${i + 1} of the data processing terms: records are kept ${i % 5} years after the contract ends.`,
    );
    // The second vector insert of the run fails once, as a crash between two would leave it.
    let inserts = 0;
    let refused = false;
    const log = logStatements((s) => {
      if (!isVectorInsert(s) || refused) return false;
      inserts++;
      if (inserts < 2) return false;
      refused = true;
      return true;
    });
    let runId: string;
    try {
      runId = await ingest(paragraphs, 'terms.txt');
    } finally {
      log.stop();
    }
    expect(refused).toBe(true);
    const run = await loadRun(h.services.db, runId);
    expect(run?.status).toBe('complete');
    const written = log.logged.filter(isVectorInsert);
    expect(written.length).toBeGreaterThanOrEqual(Math.ceil(paragraphs.length / perInsert));
    for (const insert of written) expect(rowsOf(insert)).toBeLessThanOrEqual(perInsert);
    // Every vector went through one of them (the refused one wrote none, and its rows were written again).
    expect(written.reduce((sum, insert) => sum + rowsOf(insert), 0)).toBe(paragraphs.length);
    const [counts] = (
      (await h.database.db.execute(
        sql`select count(*)::int as vectors, count(distinct v.node_key)::int as nodes,
                   (select embedded_count from document_groups where run_id = ${runId}) as embedded_count
            from knowledge_node_vectors v where v.document_group_id = (select id from document_groups where run_id = ${runId})`,
      )) as unknown as { rows: { vectors: number; nodes: number; embedded_count: number }[] }
    ).rows;
    // Every node once, and the count the document shows is the nodes embedded, not less for the retry.
    expect(counts).toEqual({ vectors: paragraphs.length, nodes: paragraphs.length, embedded_count: paragraphs.length });
  });

  it(`reads at most ${EMBED_BATCH} of its nodes per statement, through to ready`, async () => {
    const paragraphs = Array.from(
      { length: EMBED_BATCH * 4 + 37 },
      (_, i) => `Paragraph ${i + 1} of the renewal playbook: call the champion ${i % 7} weeks before the term ends.`,
    );
    const writer = (await ws.keyFor(ws.editor, 'internal_agent')).key;
    const log = logStatements();
    let runId: string;
    try {
      const res = await uploadFile(h, '/knowledge-base', writer, {
        bytes: new TextEncoder().encode(paragraphs.join('\n\n')),
        name: 'playbook.txt',
      });
      expect(res.status, JSON.stringify(res.body)).toBe(202);
      runId = res.body.data.run_id;
      for (const deadline = Date.now() + 120_000; ; ) {
        await (h.services.queue as LocalTransport).drain();
        const run = await loadRun(h.services.db, runId);
        if (run && ['complete', 'failed', 'canceled'].includes(run.status)) break;
        if (Date.now() > deadline) throw new Error('the ingest run did not end');
        await new Promise((r) => setTimeout(r, 50));
      }
    } finally {
      log.stop();
    }
    const run = await loadRun(h.services.db, runId);
    expect(run?.status).toBe('complete');
    const [counts] = (
      (await h.database.db.execute(
        sql`select count(*)::int as nodes, (select count(*)::int from knowledge_node_vectors v
              where v.document_group_id = n.document_group_id) as vectors
            from knowledge_nodes n where n.document_group_id = (select id from document_groups where run_id = ${runId})
            group by n.document_group_id`,
      )) as unknown as { rows: { nodes: number; vectors: number }[] }
    ).rows;
    expect(counts?.nodes).toBe(paragraphs.length);
    expect(counts?.vectors).toBe(paragraphs.length);

    const reads = log.logged.filter((s) => /^select .* from "knowledge_nodes"/s.test(s.sql));
    // One read per batch and the one that finds none left: the stage's reads, not a test of nothing.
    expect(reads.length).toBeGreaterThanOrEqual(Math.ceil(paragraphs.length / EMBED_BATCH) + 1);
    for (const read of reads) expect(await explainRows(read, 'knowledge_nodes')).toBeLessThanOrEqual(EMBED_BATCH);
  });
});
