import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import type { Pipeline, StageResult } from '../../queues/pipeline.js';
import { isTerminal } from '../../queues/run-store.js';
import type { LocalTransport } from '../../queues/transport/local.js';
import { queueDeliveries, runs } from '../../schema/index.js';
import type { Services } from '../../functions/services.js';
import { createHarness, openTestDatabase, type Harness, type SeededWorkspace } from '../support/harness.js';

/**
 * The engine's cost per stage on the local transport, counted at the database port: a stage in
 * the steady path is six statements (claim the delivery; lease the run; commit the result, its
 * events, the next delivery and this delivery's acknowledgement in one transaction). The count
 * is the difference between a 20-stage and a 10-stage run, so the start and the ends cancel out.
 */
function chain(kind: string, length: number): Pipeline<Services> {
  const names = Array.from({ length }, (_, i) => `s${i}`);
  return {
    kind,
    order: names,
    stages: Object.fromEntries(
      names.map((name, i) => [
        name,
        async (): Promise<StageResult> => (names[i + 1] ? { next: names[i + 1] as string } : { complete: true }),
      ]),
    ),
  };
}

let statements = 0;
let h: Harness;
let ws: SeededWorkspace;

beforeAll(async () => {
  const database = await openTestDatabase({ onQuery: () => statements++ });
  h = await createHarness({ database, pipelines: [chain('chain_10', 10), chain('chain_20', 20)] });
  ws = await h.seedWorkspace();
});
afterAll(async () => h.close());

/** Statements from a run's start to its committed end, waiting on the in-process notifier (no polling). */
async function statementsOf(kind: string): Promise<number> {
  await (h.services.queue as LocalTransport).drain();
  const before = statements;
  const { runId } = await h.services.engine.start({ workspaceId: ws.id, kind });
  for (;;) {
    const woke = h.services.runNotifier.wait(runId, 5_000);
    const counted = statements;
    const [row] = await h.database.db.select({ status: runs.status }).from(runs).where(eq(runs.id, runId));
    statements = counted; // the test's own look does not count
    if (row && isTerminal(row.status)) break;
    await woke;
  }
  return statements - before;
}

describe('run engine cost per stage', () => {
  it('is at most six statements per stage in the steady path, with the acknowledgement inside the commit', async () => {
    const ten = await statementsOf('chain_10');
    const twenty = await statementsOf('chain_20');
    const perStage = (twenty - ten) / 10;
    expect(perStage, `${perStage} statements per stage`).toBeLessThanOrEqual(6);
    // Every delivery was acknowledged (inside the commits): none is left behind.
    await (h.services.queue as LocalTransport).drain();
    expect(await h.database.db.select().from(queueDeliveries)).toEqual([]);
  });
});
