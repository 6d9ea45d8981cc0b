/**
 * The routine scheduler's cost per tick: 10,000 routines of which 100 are due, on PGlite. The tick
 * reads what is due, claims the fires, moves next_run_at and starts one fire run per claim; the
 * figure is beside the bare read of the due routines in the same run, with the statements counted
 * at the database port (target: under 200 ms per tick, a handful of statements).
 *
 *   npx tsx bench/routines.ts
 */
import { and, eq, lte } from 'drizzle-orm';
import { createApiKey, authenticateApiKey } from '../functions/identity/api-keys.js';
import { ensureMembership, ensureUser } from '../functions/identity/members.js';
import { runCallerOf } from '../functions/identity/run-caller.js';
import { fireDueRoutines } from '../functions/routines/scheduler.js';
import { newId } from '../platform/ids.js';
import { routines } from '../schema/routines.js';
import { openEmptyBenchApp } from './engine.js';
import { printTable } from './report.js';

const TOTAL = 10_000;
const DUE = 100;
const TICKS = 5;

export async function benchRoutineTick(): Promise<Record<string, string | number>[]> {
  let statements = 0;
  const { handle, services, workspaceId, close } = await openEmptyBenchApp({ onQuery: () => statements++ });
  const userId = await ensureUser(handle.db, 'bench-routines@bench.example');
  await ensureMembership(handle.db, workspaceId, userId, 'editor');
  const { key } = await createApiKey(handle.db, {
    workspaceId,
    userId,
    name: 'bench',
    bundle: 'customer_agent',
    role: 'editor',
    expiresAt: null,
  });
  const caller = runCallerOf(await authenticateApiKey(handle.db, key, new Date())) as unknown as Record<
    string,
    unknown
  >;

  const timings: { tick: number; bare: number; statements: number; claimed: number }[] = [];
  for (let t = 0; t < TICKS; t++) {
    await handle.db.delete(routines);
    const now = new Date(Date.UTC(2026, 0, 5 + t, 9, 0, 30));
    const later = new Date(now.getTime() + 3_600_000);
    const rows = Array.from({ length: TOTAL }, (_, i) => ({
      id: newId(),
      workspaceId,
      name: `Routine ${i}`,
      prompt: 'Which deals are in negotiation?',
      cron: '0 9 * * *',
      timezone: 'UTC',
      config: {},
      enabled: true,
      createdBy: userId,
      caller,
      nextRunAt: i < DUE ? new Date(now.getTime() - 30_000) : later,
    }));
    for (let i = 0; i < rows.length; i += 1_000) await handle.db.insert(routines).values(rows.slice(i, i + 1_000));

    const bareStart = performance.now();
    await handle.db
      .select({ id: routines.id })
      .from(routines)
      .where(and(eq(routines.enabled, true), lte(routines.nextRunAt, now)));
    const bare = performance.now() - bareStart;

    const before = statements;
    const tickStart = performance.now();
    const { claimed } = await fireDueRoutines(services, now);
    const tick = performance.now() - tickStart;
    timings.push({ tick, bare, statements: statements - before, claimed });
  }
  await close();
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
  const tick = median(timings.map((x) => x.tick));
  const bare = median(timings.map((x) => x.bare));
  return [
    {
      measure: `routines / due per tick (${TICKS} ticks)`,
      'due read alone': `${TOTAL} / ${DUE}`,
      'whole tick': `${TOTAL} / ${DUE}`,
      ratio: '',
    },
    {
      measure: 'fires claimed per tick',
      'due read alone': '',
      'whole tick': median(timings.map((x) => x.claimed)),
      ratio: '',
    },
    {
      measure: 'median ms per tick (target < 200)',
      'due read alone': bare.toFixed(1),
      'whole tick': tick.toFixed(1),
      ratio: (tick / bare).toFixed(1),
    },
    {
      measure: 'SQL statements per tick',
      'due read alone': 1,
      'whole tick': median(timings.map((x) => x.statements)),
      ratio: '',
    },
  ];
}

if (import.meta.url === `file://${process.argv[1]}`) {
  printTable(
    `Routine scheduler: one tick over ${TOTAL} routines, ${DUE} due (claims, next times, fire runs, one batched publish)`,
    await benchRoutineTick(),
  );
  process.exit(0);
}
