import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { EMBED_BATCH } from '../../functions/knowledge/ingest-pipeline.js';
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
function logStatements(): { logged: Logged[]; stop(): void } {
  const session = (h.database.db as unknown as { session: { logger: unknown } }).session;
  const before = session.logger;
  const logged: Logged[] = [];
  session.logger = { logQuery: (query: string, params: unknown[]) => logged.push({ sql: query, params }) };
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

describe('embedding a document', () => {
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
