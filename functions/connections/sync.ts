import { and, eq, isNotNull, lte, sql } from 'drizzle-orm';
import { z } from 'zod';
import type { AppConfig } from '../../platform/config.js';
import { connections, runs, sourceFreshness } from '../../schema/index.js';
import type { CommitScope, StageResult, TypedStageContext } from '../../queues/pipeline.js';
import type { Queryable } from '../../platform/db/port.js';
import type { Services } from '../services.js';
import { ProviderError } from './provider-errors.js';
import { CONNECTION_SYNC_KIND, getConnection, updateConnection, type ConnectionRow } from './repository.js';
import type { SyncSource } from './sync-source.js';
import { pausedReason } from './catalog.js';
import { openSyncSource } from './sync-sources.js';
import { claimMaterializations } from '../lookalike/index.js';

/**
 * One sync of a connection, on the run engine: a stage per page of a stream, the page's rows and
 * the stream's cursor committed together, so a crash between pages loses nothing and a repeated
 * delivery re-reads from the saved cursor (the upserts make a repeated page change nothing).
 *
 * How a provider failure shows (the run's `error_reason`, the connection's health):
 *   auth        401/403: the run fails, the connection needs_reauth until a reconnect
 *   rate_limit  429: the page waits out Retry-After (rate_limited meanwhile), up to 12 waits a sync
 *   config      another 4xx on one stream: that stream fails, the others go on (degraded);
 *               when every stream failed so, the run fails (error)
 *   transient   5xx or unreachable: the page is retried with backoff, the run fails after 5 tries
 *   unknown     a malformed answer: retried like transient, then fails
 */
export const SyncTriggerSchema = z.enum(['connect', 'reconnect', 'schedule', 'filters']);
export type SyncTrigger = z.infer<typeof SyncTriggerSchema>;

export const SyncInputSchema = z.object({ connection_id: z.string().uuid(), trigger: SyncTriggerSchema });
export type SyncInput = z.infer<typeof SyncInputSchema>;

const StreamState = z.object({
  name: z.string(),
  done: z.boolean(),
  failed: z.boolean(),
  written: z.number().int(),
  skipped: z.number().int(),
  pages: z.number().int(),
  error_reason: z.enum(['auth', 'rate_limit', 'transient', 'config', 'unknown']).nullable(),
});
export const SyncStateSchema = z.object({
  streams: z.array(StreamState).default([]),
  rate_waits: z.number().int().default(0),
});
export type SyncState = z.infer<typeof SyncStateSchema>;
type Ctx = TypedStageContext<Services, SyncInput, SyncState>;

export const SYNC_RETRY = { maxAttempts: 5, baseDelayMs: 2_000, maxDelayMs: 60_000 } as const;
const MAX_RATE_WAITS = 12;
/** Minutes between scheduled syncs (CONNECTION_SYNC_INTERVAL_MINUTES, 15 by default). */
export const syncIntervalMs = (config: AppConfig): number => (config.CONNECTION_SYNC_INTERVAL_MINUTES ?? 15) * 60_000;
/** A Retry-After beyond this is waited for by the next scheduled sync, not by a parked stage. */
const MAX_RATE_WAIT_SECONDS = 3_600;

/** Start a sync of the connection in the caller's transaction (its first delivery goes out after the commit). */
export async function startSync(
  scope: Pick<CommitScope, 'startRun'>,
  connection: Pick<ConnectionRow, 'id' | 'workspaceId'>,
  trigger: SyncTrigger,
  createdBy: string | null,
): Promise<string> {
  const { runId } = await scope.startRun({
    workspaceId: connection.workspaceId,
    kind: CONNECTION_SYNC_KIND,
    input: { connection_id: connection.id, trigger },
    createdBy,
  });
  return runId;
}

/** Whether a sync of this connection is queued or running (one at a time per connection). */
export async function isSyncing(db: Queryable, workspaceId: string, connectionId: string): Promise<boolean> {
  const [row] = await db
    .select({ id: runs.id })
    .from(runs)
    .where(
      and(
        eq(runs.workspaceId, workspaceId),
        eq(runs.kind, CONNECTION_SYNC_KIND),
        sql`(${runs.input}->>'connection_id') = ${connectionId}`,
        sql`${runs.status} in ('queued', 'running')`,
      ),
    )
    .limit(1);
  return row !== undefined;
}

/**
 * From the scheduled tick: start a sync of every connected connection that is due and not
 * already syncing. Claims by moving next_sync_at past the tick in the same statement, so two
 * ticks racing start one sync each. A paused connection (no call filter decision yet) has no
 * next_sync_at and is never due. A read first: with nothing due (most ticks) no transaction is opened.
 */
export async function startDueSyncs(services: Services, at: Date): Promise<number> {
  const [due] = await services.db
    .select({ id: connections.id })
    .from(connections)
    .where(and(eq(connections.status, 'connected'), isNotNull(connections.nextSyncAt), lte(connections.nextSyncAt, at)))
    .limit(1);
  if (!due) return 0;
  const next = new Date(at.getTime() + syncIntervalMs(services.config));
  return services.engine.transaction(async ({ tx, startRuns }) => {
    const claimed = await tx
      .update(connections)
      .set({ nextSyncAt: next })
      .where(
        and(
          eq(connections.status, 'connected'),
          isNotNull(connections.nextSyncAt),
          lte(connections.nextSyncAt, at),
          sql`not exists (select 1 from ${runs} r where r.workspace_id = ${connections.workspaceId} and r.kind = ${CONNECTION_SYNC_KIND}
                and (r.input->>'connection_id') = ${connections.id}::text and r.status in ('queued', 'running'))`,
        ),
      )
      .returning({ id: connections.id, workspaceId: connections.workspaceId });
    await startRuns(
      claimed.map((c) => ({
        workspaceId: c.workspaceId,
        kind: CONNECTION_SYNC_KIND,
        input: { connection_id: c.id, trigger: 'schedule' },
      })),
    );
    return claimed.length;
  });
}

const setConnection = updateConnection;

/** One page of the first stream that is not finished; or the sync's end when none is left. */
export async function syncStage(ctx: Ctx): Promise<StageResult<SyncState>> {
  const { services, run, input } = ctx;
  const now = services.clock.now();
  let connection: ConnectionRow;
  try {
    connection = await getConnection(services.db, run.workspaceId, input.connection_id);
  } catch {
    return { complete: true, output: { stopped: 'connection_gone' } };
  }
  // Disconnected (or paused) meanwhile: the sync stops where it is; what it wrote stays.
  if (connection.status !== 'connected') return { complete: true, output: { stopped: 'disconnected' } };
  const connector = services.connectors.find(connection.connectorType);
  const paused = connector ? pausedReason(connector, connection) : null;
  if (paused) return { complete: true, output: { stopped: paused } };

  let source: SyncSource;
  try {
    source = await openSyncSource(services, connection);
  } catch (error) {
    return failed(ctx, connection, error, now);
  }
  const streams =
    ctx.state.streams.length > 0
      ? ctx.state.streams
      : source.streams.map((name) => ({
          name,
          done: false,
          failed: false,
          written: 0,
          skipped: 0,
          pages: 0,
          error_reason: null,
        }));
  const current = streams.find((s) => !s.done && !s.failed);
  if (!current) return finish(ctx, connection, source, streams, now);

  try {
    const page = await source.fetch(current.name, connection.cursors[current.name] ?? null, now, ctx.signal);
    await ctx.checkpoint();
    const updated = streams.map((s) =>
      s === current
        ? {
            ...s,
            done: page.done,
            written: s.written + page.result.written,
            skipped: s.skipped + page.result.skipped,
            pages: s.pages + 1,
          }
        : s,
    );
    const surface = source.surfaceOf(current.name);
    return {
      next: 'page',
      state: { streams: updated, rate_waits: 0 },
      effects: async ({ tx }) => {
        await page.write(tx);
        await setConnection(tx, connection, {
          cursors: sql`${connections.cursors} || ${JSON.stringify({ [current.name]: page.cursor })}::jsonb`,
          rateLimitedUntil: null,
          updatedAt: now,
        });
        if (surface && page.result.written > 0)
          await touchFreshness(tx, connection.workspaceId, source.source, surface, {
            latestEventAt: page.result.latestEventAt,
            ingestAt: now,
          });
      },
    };
  } catch (error) {
    return failed(ctx, connection, error, now, current.name, streams);
  }
}

async function finish(
  ctx: Ctx,
  connection: ConnectionRow,
  source: SyncSource,
  streams: SyncState['streams'],
  now: Date,
): Promise<StageResult<SyncState>> {
  const interval = syncIntervalMs(ctx.services.config);
  const surfaces = [...new Set(source.streams.map((s) => source.surfaceOf(s)).filter((s) => s !== null))];
  const failedStreams = streams.filter((s) => s.failed);
  if (streams.length > 0 && failedStreams.length === streams.length) {
    // Nothing came through: the sync failed (error), it did not half-succeed (degraded).
    const reason = failedStreams[0]?.error_reason ?? 'unknown';
    return {
      fail: {
        code: reason,
        message: `Every stream failed (${failedStreams.map((s) => s.name).join(', ')}); the first failed for: ${reason}.`,
      },
      state: { streams },
      effects: async ({ tx }) =>
        void (await setConnection(tx, connection, { nextSyncAt: new Date(now.getTime() + interval), updatedAt: now })),
    };
  }
  return {
    complete: true,
    state: { streams },
    output: {
      streams_total: streams.length,
      streams_failed: streams.filter((s) => s.failed).length,
      records_written: streams.reduce((n, s) => n + s.written, 0),
    },
    effects: async (scope) => {
      const { tx } = scope;
      await setConnection(tx, connection, {
        lastSyncedAt: now,
        nextSyncAt: new Date(now.getTime() + interval),
        rateLimitedUntil: null,
        updatedAt: now,
      });
      for (const surface of surfaces)
        await touchFreshness(tx, connection.workspaceId, source.source, surface, { syncAt: now });
      // New conversations move the lookalike centroids: rebuild this workspace's now, not at the next tick.
      if (wroteConversations(source, streams))
        await claimMaterializations(scope, ctx.services.embedder.id, now, connection.workspaceId);
    },
  };
}

/** Whether the sync wrote rows to the interactions surface (calls, meetings, emails, posts and their turns). */
const wroteConversations = (source: SyncSource, streams: SyncState['streams']): boolean =>
  streams.some((s) => s.written > 0 && source.surfaceOf(s.name) === 'interactions');

/** Classify a failure: the stream, the run or the connection carries it, as the table above says. */
function failed(
  ctx: Ctx,
  connection: ConnectionRow,
  error: unknown,
  now: Date,
  stream?: string,
  streams: SyncState['streams'] = ctx.state.streams,
): StageResult<SyncState> {
  if (!(error instanceof ProviderError)) throw error;
  const { services, run } = ctx;
  const interval = syncIntervalMs(services.config);
  const mark = (reason: ProviderError['reason'], failedToo: boolean) =>
    streams.map((s) => (s.name === stream ? { ...s, error_reason: reason, failed: failedToo || s.failed } : s));
  // The next scheduled sync picks up from the saved cursors, whatever ended this one.
  const reschedule = { nextSyncAt: new Date(now.getTime() + interval), updatedAt: now };
  switch (error.reason) {
    case 'auth':
      return {
        fail: { code: 'auth', message: error.message },
        state: { streams: mark('auth', true) },
        effects: async ({ tx }) => void (await setConnection(tx, connection, { ...reschedule, authFailedAt: now })),
      };
    case 'rate_limit': {
      const wait = Math.max(1, error.retryAfterSeconds ?? 60);
      const until = new Date(now.getTime() + wait * 1000);
      if (ctx.state.rate_waits >= MAX_RATE_WAITS || wait > MAX_RATE_WAIT_SECONDS) {
        return {
          fail: { code: 'rate_limit', message: error.message },
          state: { streams: mark('rate_limit', false) },
          effects: async ({ tx }) =>
            void (await setConnection(tx, connection, {
              rateLimitedUntil: until,
              nextSyncAt: until > reschedule.nextSyncAt ? until : reschedule.nextSyncAt,
              updatedAt: now,
            })),
        };
      }
      return {
        next: 'page',
        delaySeconds: wait,
        state: { streams: mark('rate_limit', false), rate_waits: ctx.state.rate_waits + 1 },
        events: [{ type: 'sync.rate_limited', data: { stream: stream ?? null, retry_after_seconds: wait } }],
        effects: async ({ tx }) =>
          void (await setConnection(tx, connection, { rateLimitedUntil: until, updatedAt: now })),
      };
    }
    case 'config':
      if (!stream)
        return {
          fail: { code: 'config', message: error.message },
          effects: async ({ tx }) => void (await setConnection(tx, connection, reschedule)),
        };
      return {
        next: 'page',
        state: { streams: mark('config', true) },
        events: [{ type: 'sync.stream_failed', data: { stream, reason: 'config', message: error.message } }],
      };
    case 'transient':
    case 'unknown':
      // Retried by the engine with backoff; the last attempt fails the run with the reason.
      if (run.attempt < SYNC_RETRY.maxAttempts) throw error;
      return {
        fail: { code: error.reason, message: error.message },
        state: { streams: mark(error.reason, true) },
        effects: async ({ tx }) => void (await setConnection(tx, connection, reschedule)),
      };
  }
}

/** Move a source's freshness forward (never back): newest event, newest ingest, last sync. */
export async function touchFreshness(
  tx: Queryable,
  workspaceId: string,
  source: string,
  surface: 'interactions' | 'deals' | 'deal_qualification',
  at: { latestEventAt?: Date | null; ingestAt?: Date; syncAt?: Date },
): Promise<void> {
  await tx
    .insert(sourceFreshness)
    .values({
      workspaceId,
      source,
      surface,
      latestEventAt: at.latestEventAt ?? null,
      latestIngestAt: at.ingestAt ?? null,
      lastSyncAt: at.syncAt ?? null,
    })
    .onConflictDoUpdate({
      target: [sourceFreshness.workspaceId, sourceFreshness.source, sourceFreshness.surface],
      set: {
        latestEventAt: sql`greatest(${sourceFreshness.latestEventAt}, excluded.latest_event_at)`,
        latestIngestAt: sql`greatest(${sourceFreshness.latestIngestAt}, excluded.latest_ingest_at)`,
        lastSyncAt: sql`greatest(${sourceFreshness.lastSyncAt}, excluded.last_sync_at)`,
      },
    });
}
