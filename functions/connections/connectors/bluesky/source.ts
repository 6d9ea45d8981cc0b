import { z } from 'zod';
import type { ConnectorServices } from '../../connector.js';
import {
  heldSince,
  heldThreadsPage,
  plannedBlueskyPage,
  prepareBlueskyPage,
  SOURCE,
  threadRoots,
  workspaceBlueskyAccounts,
} from './ingest.js';
import { BlueskyClient, type BlueskyPost } from './client.js';
import { ProviderError } from '../../provider-errors.js';
import type { ConnectionRow } from '../../repository.js';
import type { SyncSource } from '../../sync-source.js';
import { historyStart } from '../../sync-window.js';

/**
 * A Bluesky account's sync, one stream (`threads`) in two passes, a stage per page:
 *
 * 1. The feed: the account's posts and replies, newest first, back to this walk's horizon (12
 *    months on the first sync; afterwards 14 days before the newest post the previous walk saw, as
 *    replies keep coming for a while). Each thread it points at is read unless the connection
 *    already holds it from inside the window (the second pass reads those). A conversation the
 *    account joins again later is read whatever its age: its reply is new activity in the feed.
 * 2. Reconcile (not on a first walk, which has just read everything): every thread the connection
 *    holds that started inside the window is read again, so a reply added or deleted since, or a
 *    post deleted from Bluesky (it leaves the feed, so the first pass cannot see it go), reaches the
 *    warehouse.
 */
export const BLUESKY_REREAD_MS = 14 * 24 * 3600_000;
/** Threads read at once while a page is prepared (the AppView allows 3,000 requests in 5 minutes). */
const THREAD_READS = 4;
const RECONCILE_PAGE = 25;

const Saved = z.object({
  horizon: z.string(),
  cursor: z.string().nullable(),
  newest: z.string().nullable(),
  /** Whether this walk started from a previous one's horizon (a first walk skips the reconcile pass). */
  resumed: z.boolean().default(false),
  /** Set once the feed is walked: the reconcile pass, from this root URI on. */
  reconcile: z.object({ after: z.string().nullable() }).nullable().default(null),
});
type Saved = z.infer<typeof Saved>;

export function blueskySource(services: ConnectorServices, connection: ConnectionRow): SyncSource {
  const client = new BlueskyClient({ baseUrl: services.config.BLUESKY_API_BASE_URL, now: () => services.clock.now() });
  const did = connection.fields.account_did;
  const scope = { workspaceId: connection.workspaceId, connectionId: connection.id };

  async function readThreads(roots: readonly string[]): Promise<Map<string, BlueskyPost[] | null>> {
    const threads = new Map<string, BlueskyPost[] | null>();
    for (let i = 0; i < roots.length; i += THREAD_READS) {
      const batch = roots.slice(i, i + THREAD_READS);
      const read = await Promise.all(batch.map((uri) => client.thread(uri)));
      batch.forEach((uri, j) => threads.set(uri, read[j] ?? null));
    }
    return threads;
  }

  async function plan(
    accountDid: string,
    threads: ReadonlyMap<string, readonly BlueskyPost[] | null>,
    signal: AbortSignal,
  ) {
    const internalDids = await workspaceBlueskyAccounts(services.db, connection.workspaceId, accountDid);
    return plannedBlueskyPage(
      await prepareBlueskyPage(
        services.db,
        services.embedder,
        { ...scope, did: accountDid, internalDids },
        threads,
        signal,
      ),
    );
  }

  /** The next walk starts 14 days before the newest post this one saw (never earlier than this one's horizon). */
  const nextWalk = (start: Saved): Saved => ({
    horizon: start.newest
      ? new Date(Math.max(Date.parse(start.horizon), Date.parse(start.newest) - BLUESKY_REREAD_MS)).toISOString()
      : start.horizon,
    cursor: null,
    newest: null,
    resumed: true,
    reconcile: null,
  });

  return {
    source: SOURCE,
    streams: ['threads'],
    surfaceOf: () => 'interactions',
    async fetch(_stream, saved, now, signal) {
      if (!did) throw new ProviderError('config', 'The connection does not name a Bluesky account; reconnect it.');
      const prior = Saved.safeParse(saved);
      const start: Saved = prior.success
        ? prior.data
        : { horizon: historyStart(now).toISOString(), cursor: null, newest: null, resumed: false, reconcile: null };
      const since = new Date(start.horizon);

      if (start.reconcile) {
        const roots = await heldThreadsPage(services.db, scope, since, start.reconcile.after, RECONCILE_PAGE);
        const done = roots.length < RECONCILE_PAGE;
        return {
          cursor: done ? nextWalk(start) : { ...start, reconcile: { after: roots.at(-1) ?? null } },
          done,
          ...(await plan(did, await readThreads(roots), signal)),
        };
      }

      const page = await client.authorFeed(did, start.cursor);
      // Newest first: the first item older than the horizon ends this walk.
      const inWindow = page.items.filter((i) => i.post.indexedAt >= start.horizon);
      const walked = inWindow.length < page.items.length || page.next === null;
      const roots = threadRoots(inWindow, did);
      const leftToReconcile = start.resumed ? await heldSince(services.db, scope, roots, since) : new Set<string>();
      const planned = await plan(did, await readThreads(roots.filter((uri) => !leftToReconcile.has(uri))), signal);
      const newest = inWindow.reduce<string | null>(
        (n, i) => (!n || i.post.indexedAt > n ? i.post.indexedAt : n),
        start.newest,
      );
      const walkedFeed: Saved = { ...start, cursor: null, newest };
      return {
        cursor: !walked
          ? { ...start, cursor: page.next, newest }
          : start.resumed
            ? { ...walkedFeed, reconcile: { after: null } }
            : nextWalk(walkedFeed),
        done: walked && !start.resumed,
        ...planned,
      };
    },
  };
}
