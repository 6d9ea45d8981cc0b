import { sql, type SQL } from 'drizzle-orm';
import { pacingOf } from '../../platform/db/pacing.js';
import { queryRows, type Queryable } from '../../platform/db/port.js';
import { nextMacrotask } from '../../platform/yielder.js';

/**
 * A read over every conversation of a workspace, a slice at a time: the next interactions newest
 * first, by (occurred_at, id), as many as the database's pacing says (platform/db/pacing.ts), one
 * bounded statement each and the event loop turning between two. An embedded database runs a
 * statement on the event loop, so one statement over all of a workspace's turns holds every other
 * tenant's requests for as long as that workspace is large; a slice's statement reads one slice's
 * rows whatever the corpus. A database server runs it elsewhere, so there a slice is large and a
 * read of a demo-sized workspace is one slice (each statement being a round trip).
 *
 * A slice is a predicate over an event time and an interaction id: `i.occurred_at, i.id` for the
 * interactions, `t.occurred_at, t.interaction_id` for their transcript turns (a turn carries its
 * interaction's time), so one slice covers an interaction and all its turns.
 */

/** An interaction's place in newest-first order. */
export interface SliceKey {
  /** occurred_at as Postgres writes it (full precision, so it reads back equal). */
  at: string;
  id: string;
}

/** One slice: the interactions after `newer` (exclusive) down to `oldest` (inclusive; null: to the first). */
export interface ConversationSlice {
  newer: SliceKey | null;
  oldest: SliceKey | null;
  /** The slice as a predicate over the columns given (an event time and an interaction id). */
  over(at: SQL, id: SQL): SQL;
}

const olderThan = (at: SQL, id: SQL, key: SliceKey): SQL =>
  // The bare time bound lets the (workspace_id, occurred_at) index narrow the scan; the pair orders ties.
  sql`${at} <= ${key.at}::timestamptz and (${at} < ${key.at}::timestamptz or ${id} < ${key.id}::uuid)`;
const notOlderThan = (at: SQL, id: SQL, key: SliceKey): SQL =>
  sql`${at} >= ${key.at}::timestamptz and (${at} > ${key.at}::timestamptz or ${id} >= ${key.id}::uuid)`;

function sliceOf(newer: SliceKey | null, oldest: SliceKey | null): ConversationSlice {
  return {
    newer,
    oldest,
    over(at, id) {
      const parts: SQL[] = [];
      if (newer) parts.push(olderThan(at, id, newer));
      if (oldest) parts.push(notOlderThan(at, id, oldest));
      return parts.length ? sql.join(parts, sql` and `) : sql`true`;
    },
  };
}

export interface SliceOptions {
  /** Which interactions the slices count (over `i`, cheap: the workspace, a period, a kind); all by default. */
  where?: SQL;
  /** Interactions per slice; the database's pacing when not given. */
  size?: number;
}

/**
 * Call `read` with each slice of the workspace's interactions, newest first, until it returns
 * false or the interactions end; the event loop turns between two slices. Each slice is one
 * statement to find where it ends (an index range of `size` rows) and `read`'s own statements.
 */
export async function forEachConversationSlice(
  db: Queryable,
  workspaceId: string,
  read: (slice: ConversationSlice) => Promise<boolean>,
  options: SliceOptions = {},
): Promise<void> {
  const size = options.size ?? pacingOf(db).conversationsPerSlice;
  const where = options.where ?? sql`true`;
  let newer: SliceKey | null = null;
  for (;;) {
    const [oldest]: (SliceKey | undefined)[] = await queryRows<{ at: string; id: string }>(
      db,
      sql`select i.occurred_at::text as at, i.id::text as id from interactions i
          where i.workspace_id = ${workspaceId} and ${where}
            and ${newer ? olderThan(sql`i.occurred_at`, sql`i.id`, newer) : sql`true`}
          order by i.occurred_at desc, i.id desc offset ${size - 1} limit 1`,
    );
    const slice = sliceOf(newer, oldest ?? null);
    if ((await read(slice)) === false || !oldest) return;
    newer = oldest;
    await nextMacrotask();
  }
}

/**
 * The rows `read` finds in each slice, newest slice first, until at least `max` rows are held: then
 * `readBackTo` is the oldest day the last slice read (what an answer says it covered), else null.
 */
export async function collectFromConversationSlices<Row>(
  db: Queryable,
  workspaceId: string,
  read: (slice: ConversationSlice) => Promise<readonly Row[]>,
  options: SliceOptions & { max: number },
): Promise<{ rows: Row[]; readBackTo: string | null }> {
  const rows: Row[] = [];
  let readBackTo: string | null = null;
  await forEachConversationSlice(
    db,
    workspaceId,
    async (slice) => {
      rows.push(...(await read(slice)));
      if (rows.length < options.max || !slice.oldest) return true;
      readBackTo = slice.oldest.at.slice(0, 10);
      return false;
    },
    options,
  );
  return { rows, readBackTo };
}
