import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fireDueRoutines } from '../functions/routines/scheduler.js';
import { runScheduledTick } from '../functions/scheduled-tick.js';
import { ManualClock } from '../platform/clock.js';
import { newId } from '../platform/ids.js';
import type { LocalTransport } from '../queues/transport/local.js';
import { routines } from '../schema/index.js';
import { createHarness, type Harness, openTestDatabase, type SeededWorkspace } from './support/harness.js';

/**
 * The scheduled tick shares the embedded default's event loop with the API: it lets the loop turn
 * between its steps and between the chunks of a large batch, and a tick with nothing due only
 * reads. Counted, not timed: event-loop turns (setImmediate callbacks run while the tick is in
 * progress) and statements at the database port.
 */

const clock = new ManualClock('2026-03-02T10:00:30.000Z');
let statements: string[] = [];
let h: Harness;
let ws: SeededWorkspace;

beforeAll(async () => {
  const database = await openTestDatabase({ onQuery: (sql) => statements.push(sql) });
  h = await createHarness({ clock, database });
  ws = await h.seedWorkspace();
  // The runs the tick starts are not delivered here: only the tick itself is under test.
  (h.services.queue as LocalTransport).crash();
});
afterAll(async () => h.close());

/** Run `work` and count how often the event loop turned (a setImmediate chain) before it finished. */
async function turnsDuring<T>(work: () => Promise<T>): Promise<{ turns: number; value: T }> {
  let turns = 0;
  let done = false;
  const spin = () => {
    if (done) return;
    turns++;
    setImmediate(spin);
  };
  setImmediate(spin);
  const value = await work();
  done = true;
  return { turns, value };
}

/** Statements of the tick itself (the queue's own bookkeeping is not the tick's). */
const tickStatements = () => statements.filter((s) => !s.includes('queue_deliveries'));

describe('the scheduled tick in a shared event loop', () => {
  it('with nothing due: one read per step, no write, and the loop turns between the steps', async () => {
    statements = [];
    const { turns } = await turnsDuring(() => runScheduledTick(h.services, clock.now()));
    const seen = tickStatements();
    expect(seen.filter((s) => /\b(insert|update|delete)\b/i.test(s))).toEqual([]);
    // The sweep, four feature steps and the purge.
    expect(seen).toHaveLength(6);
    expect(turns).toBeGreaterThanOrEqual(6);
  });

  it('over 250 due routines: all fired, in chunks with the loop turning between them', async () => {
    const now = clock.now();
    await h.database.db.insert(routines).values(
      Array.from({ length: 250 }, (_, i) => ({
        id: newId(),
        workspaceId: ws.id,
        name: `Routine ${i}`,
        prompt: 'Which deals are in negotiation?',
        cron: '0 10 * * *',
        timezone: 'UTC',
        config: {},
        enabled: true,
        createdBy: ws.editor.userId,
        caller: { auth_method: 'api_key' },
        nextRunAt: new Date(now.getTime() - 30_000),
      })),
    );
    const { turns, value } = await turnsDuring(() => fireDueRoutines(h.services, now));
    expect(value).toEqual({ due: 250, claimed: 250 });
    // Three chunks of at most 100: the loop turns at least between each two. One transaction for
    // the whole batch let it turn not once.
    expect(turns).toBeGreaterThanOrEqual(2);
    // Fired once: a repeated tick finds nothing due.
    expect(await fireDueRoutines(h.services, now)).toEqual({ due: 0, claimed: 0 });
  });
});
