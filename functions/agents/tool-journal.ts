import { and, eq } from 'drizzle-orm';
import type { Queryable } from '../../platform/db/port.js';
import { runToolCalls } from '../../schema/agents.js';

/**
 * Exactly-once model steps and tool calls across stage retries (architecture: "a crash between
 * stages loses nothing", "every queue delivery is idempotent"). A turn saves the model's step and
 * each tool call's result the moment it has them, under a key of the turn; a stage that crashed
 * before committing and runs again finds them and replays them instead of asking the model again
 * (which could choose differently) or calling a tool twice.
 *
 * The one window left is a crash after a tool's own write committed and before its result was saved
 * here: that call runs again on retry (at-least-once). Reads are unaffected; docs/design/agent-loop.md says so.
 */
export async function journaled<T extends Record<string, unknown>>(
  db: Queryable,
  entry: { runId: string; workspaceId: string; key: string; tool: string; arguments: Record<string, unknown> },
  execute: () => Promise<T>,
): Promise<{ result: T; replayed: boolean }> {
  const saved = await read<T>(db, entry.runId, entry.key);
  if (saved) return { result: saved, replayed: true };
  const result = await execute();
  const [inserted] = await db
    .insert(runToolCalls)
    .values({
      runId: entry.runId,
      callKey: entry.key,
      workspaceId: entry.workspaceId,
      tool: entry.tool,
      arguments: entry.arguments,
      result,
    })
    .onConflictDoNothing()
    .returning({ key: runToolCalls.callKey });
  if (inserted) return { result, replayed: false };
  // A concurrent holder of the same stage saved first (its lease expired under it): keep one answer.
  return { result: (await read<T>(db, entry.runId, entry.key)) ?? result, replayed: true };
}

async function read<T>(db: Queryable, runId: string, key: string): Promise<T | null> {
  const [row] = await db
    .select({ result: runToolCalls.result })
    .from(runToolCalls)
    .where(and(eq(runToolCalls.runId, runId), eq(runToolCalls.callKey, key)));
  return (row?.result as T | undefined) ?? null;
}
