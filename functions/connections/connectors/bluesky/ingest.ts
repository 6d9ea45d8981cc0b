import { and, asc, eq, gt, gte, inArray, sql } from 'drizzle-orm';
import { connections, interactionHolders, interactions, transcriptTurns } from '../../../../schema/index.js';
import type { Queryable } from '../../../../platform/db/port.js';
import type { Embedder } from '../../../../platform/model/port.js';
import type { PlannedPage } from '../../crm-ingest.js';
import {
  holdInteractions,
  pruneOrphanVectors,
  releaseInteractions,
  replaceRosters,
  writeInteractions,
  type InteractionDraft,
  type RosterLinks,
  type RosterMember,
} from '../../interaction-ingest.js';
import type { BlueskyFeedItem, BlueskyPost } from './client.js';
import {
  embedTranscripts,
  sentencesOf,
  shapeTranscript,
  writeTranscripts,
  type EmbeddedTranscript,
  type SpokenTurn,
} from '../../transcript-ingest.js';

/**
 * Public Bluesky conversations into the warehouse: one `post` interaction per thread the connected
 * account started or replied in (upserted on the thread's root post URI), one turn per post in the
 * order the AppView indexed them, the workspace's own accounts (every Bluesky account it connected)
 * on the internal side and everyone else on the external side (so replies are customer voice:
 * embedded for the semantic lane, quotable). Each connection holds the threads it read
 * (`interaction_holders`), so two of the workspace's accounts in one thread share one interaction,
 * and a thread leaves only when no connection holds it.
 * A thread with no one but the account in it brings no customer voice and is skipped. A thread
 * read again whose posts changed (a new reply, a deleted one, an edit) has its words and roster
 * replaced in the page's commit; one that did not change is left exactly as it is.
 */
export const SOURCE = 'bluesky';
/** Posts kept per thread, the root and the earliest replies: a viral thread is not the warehouse's to mirror. */
export const MAX_THREAD_POSTS = 200;
const TITLE_LENGTH = 120;

export interface BlueskyAccount {
  workspaceId: string;
  connectionId: string;
  /** The connected account's DID: whose feed is read, whatever its handle is now. */
  did: string;
  /** Every account of the workspace's Bluesky connections (this one's included): the internal side. */
  internalDids: ReadonlySet<string>;
}

/** The accounts of the workspace's Bluesky connections, whatever their state (a paused brand account is still the brand). */
export async function workspaceBlueskyAccounts(db: Queryable, workspaceId: string, did: string): Promise<Set<string>> {
  const rows = await db
    .select({ did: sql<string | null>`${connections.fields}->>'account_did'` })
    .from(connections)
    .where(and(eq(connections.workspaceId, workspaceId), eq(connections.connectorType, SOURCE)));
  return new Set([did, ...rows.map((r) => r.did).filter((d): d is string => d !== null)]);
}

const heldBy = (scope: { workspaceId: string; connectionId: string }) =>
  and(
    eq(interactions.workspaceId, scope.workspaceId),
    eq(interactions.source, SOURCE),
    sql`exists (select 1 from ${interactionHolders} h where h.interaction_id = ${interactions.id} and h.connection_id = ${scope.connectionId})`,
  );

/** Which of these threads the connection already holds with their first post at or after `since` (the reconcile pass reads those). */
export async function heldSince(
  db: Queryable,
  scope: { workspaceId: string; connectionId: string },
  rootUris: readonly string[],
  since: Date,
): Promise<Set<string>> {
  if (rootUris.length === 0) return new Set();
  const rows = await db
    .select({ uri: interactions.externalId })
    .from(interactions)
    .where(and(heldBy(scope), gte(interactions.occurredAt, since), inArray(interactions.externalId, [...rootUris])));
  return new Set(rows.map((r) => r.uri as string));
}

/** A page of the threads the connection holds that started at or after `since`, by root URI after `after`. */
export async function heldThreadsPage(
  db: Queryable,
  scope: { workspaceId: string; connectionId: string },
  since: Date,
  after: string | null,
  limit: number,
): Promise<string[]> {
  const rows = await db
    .select({ uri: interactions.externalId })
    .from(interactions)
    .where(
      and(
        heldBy(scope),
        gte(interactions.occurredAt, since),
        after === null ? undefined : gt(interactions.externalId, after),
      ),
    )
    .orderBy(asc(interactions.externalId))
    .limit(limit);
  return rows.map((r) => r.uri as string);
}

/** The threads a page of the account's feed points at, root URIs in feed order, each once. */
export function threadRoots(items: readonly BlueskyFeedItem[], accountDid: string): string[] {
  const roots = new Set<string>();
  for (const item of items) {
    if (item.shared || item.post.author.did !== accountDid) continue;
    // A reply by the account: the whole conversation it joined. A post of its own: only when someone answered it.
    if (item.rootUri) roots.add(item.rootUri);
    else if (item.post.replyCount > 0) roots.add(item.post.uri);
  }
  return [...roots];
}

const speakerOf = (p: BlueskyPost): string =>
  p.author.displayName ? `${p.author.displayName} (@${p.author.handle})` : `@${p.author.handle}`;
const postedAt = (p: BlueskyPost): Date => {
  // The author's clock can run ahead (or be set to anything): never later than the server saw it.
  const indexed = new Date(p.indexedAt);
  const created = p.createdAt ? new Date(p.createdAt) : null;
  return created && created.getTime() <= indexed.getTime() ? created : indexed;
};

interface ThreadDraft extends InteractionDraft {
  spoken: SpokenTurn[];
  newestAt: Date;
}

/** A thread as an interaction draft, or null when only the workspace's own accounts speak in it. */
export function draftThread(
  rootUri: string,
  posts: readonly BlueskyPost[],
  internalDids: ReadonlySet<string>,
): ThreadDraft | null {
  const root = posts.find((p) => p.uri === rootUri);
  if (!root) return null;
  const replies = posts
    .filter((p) => p.uri !== rootUri)
    .sort((a, b) => a.indexedAt.localeCompare(b.indexedAt) || a.uri.localeCompare(b.uri))
    .slice(0, MAX_THREAD_POSTS - 1);
  const kept = [root, ...replies];
  const sideOf = (p: BlueskyPost): 'internal' | 'external' =>
    internalDids.has(p.author.did) ? 'internal' : 'external';
  if (!kept.some((p) => sideOf(p) === 'external' && p.text.trim() !== '')) return null;
  const roster = new Map<string, RosterMember>();
  for (const p of kept) roster.set(p.author.did, { name: speakerOf(p), email: null, side: sideOf(p) });
  const firstLine = root.text.trim().split('\n')[0]?.trim() ?? '';
  return {
    externalId: rootUri,
    kind: 'post',
    title:
      firstLine === ''
        ? `Post by @${root.author.handle}`
        : firstLine.length > TITLE_LENGTH
          ? `${firstLine.slice(0, TITLE_LENGTH - 1)}\u2026`
          : firstLine,
    occurredAt: postedAt(root),
    durationSeconds: null,
    summary: null,
    participants: [...roster.values()],
    spoken: kept.map((p) => ({
      speaker: speakerOf(p),
      email: null,
      side: sideOf(p),
      startedAt: null,
      endedAt: null,
      sentences: sentencesOf(p.text),
    })),
    newestAt: kept.reduce((n, p) => (postedAt(p) > n ? postedAt(p) : n), postedAt(root)),
  };
}

interface PreparedThread extends ThreadDraft {
  /** The new words, embedded; null when the stored thread says exactly this already. */
  transcript: EmbeddedTranscript | null;
  /** The thread was stored before: its words and roster are replaced, not added to. */
  replaces: boolean;
}

export interface PreparedBlueskyPage {
  account: BlueskyAccount;
  embedderId: string;
  threads: PreparedThread[];
  /** Threads this connection lets go (the root deleted, or no outside voice left); they leave the warehouse when no connection holds them. */
  gone: string[];
  skipped: number;
}

const signature = (side: string, speaker: string | null, text: string): string =>
  `${side}\u0000${speaker ?? ''}\u0000${text}`;

/** The stored words of these threads, as turn lists (side, speaker and text), by root URI. */
async function storedThreads(
  db: Queryable,
  workspaceId: string,
  rootUris: readonly string[],
): Promise<Map<string, string[]>> {
  if (rootUris.length === 0) return new Map();
  const rows = await db
    .select({
      externalId: interactions.externalId,
      side: transcriptTurns.side,
      speaker: transcriptTurns.speakerName,
      text: transcriptTurns.text,
    })
    .from(interactions)
    .leftJoin(transcriptTurns, eq(transcriptTurns.interactionId, interactions.id))
    .where(
      and(
        eq(interactions.workspaceId, workspaceId),
        eq(interactions.source, SOURCE),
        inArray(interactions.externalId, [...rootUris]),
      ),
    )
    .orderBy(interactions.externalId, transcriptTurns.turnIndex);
  const out = new Map<string, string[]>();
  for (const r of rows) {
    const turns = out.get(r.externalId as string) ?? [];
    if (r.text !== null) turns.push(signature(r.side ?? '', r.speaker, r.text));
    out.set(r.externalId as string, turns);
  }
  return out;
}

/**
 * Read, compare and embed before the page's commit: `threads` maps each root URI to its posts
 * (null when the root is gone). Only threads whose words changed are embedded and rewritten.
 */
export async function prepareBlueskyPage(
  db: Queryable,
  embedder: Embedder,
  account: BlueskyAccount,
  threads: ReadonlyMap<string, readonly BlueskyPost[] | null>,
  signal?: AbortSignal,
): Promise<PreparedBlueskyPage> {
  const stored = await storedThreads(db, account.workspaceId, [...threads.keys()]);
  const gone: string[] = [];
  let skipped = 0;
  const changed: { draft: ThreadDraft; replaces: boolean }[] = [];
  const unchanged: ThreadDraft[] = [];
  for (const [rootUri, posts] of threads) {
    if (posts === null) {
      if (stored.has(rootUri)) gone.push(rootUri);
      continue;
    }
    const draft = draftThread(rootUri, posts, account.internalDids);
    if (!draft) {
      // Everyone else's replies were deleted: the thread no longer holds customer voice.
      if (stored.has(rootUri)) gone.push(rootUri);
      else skipped += 1;
      continue;
    }
    const words = shapeTranscript(draft.spoken).turns.map((t) => signature(t.side, t.speaker, t.text));
    const before = stored.get(rootUri);
    if (before && before.length === words.length && before.every((w, i) => w === words[i])) unchanged.push(draft);
    else changed.push({ draft, replaces: before !== undefined });
  }
  const embedded = await embedTranscripts(
    embedder,
    { db, workspaceId: account.workspaceId },
    changed.map((c) => c.draft.spoken),
    signal,
  );
  return {
    account,
    embedderId: embedder.id,
    threads: [
      ...changed.map((c, i): PreparedThread => ({ ...c.draft, transcript: embedded[i] ?? null, replaces: c.replaces })),
      ...unchanged.map((d): PreparedThread => ({ ...d, transcript: null, replaces: false })),
    ],
    gone,
    skipped,
  };
}

/** Nothing to link by: posts carry no email, and a handle says nothing reliable about an employer. */
const UNLINKED: RosterLinks = { contactOf: new Map(), accountOf: () => null };

/** The page's counts and its write, for the page's commit. */
export function plannedBlueskyPage(page: PreparedBlueskyPage): PlannedPage {
  const rewritten = page.threads.filter((t) => t.transcript !== null);
  const latest = page.threads.reduce<Date | null>((n, t) => (!n || t.newestAt > n ? t.newestAt : n), null);
  return {
    result: { written: rewritten.length, skipped: page.skipped, latestEventAt: latest },
    write: async (tx) => {
      const { workspaceId } = page.account;
      const idOf = await writeInteractions(tx, workspaceId, SOURCE, page.threads, UNLINKED);
      await holdInteractions(tx, workspaceId, page.account.connectionId, [...idOf.values()]);
      const replaced = rewritten.flatMap((t) => {
        const interactionId = t.replaces ? idOf.get(t.externalId) : undefined;
        return interactionId ? [{ interactionId, participants: t.participants }] : [];
      });
      await replaceRosters(tx, workspaceId, replaced, UNLINKED);
      await writeTranscripts(
        tx,
        workspaceId,
        page.embedderId,
        rewritten.flatMap((t) =>
          idOf.get(t.externalId)
            ? [
                {
                  interactionId: idOf.get(t.externalId) as string,
                  occurredAt: t.occurredAt,
                  transcript: t.transcript as EmbeddedTranscript,
                },
              ]
            : [],
        ),
      );
      // After the new words are in: a text the thread still says keeps its vector.
      if (replaced.length > 0) await pruneOrphanVectors(tx, workspaceId);
      await releaseInteractions(tx, workspaceId, SOURCE, page.account.connectionId, page.gone);
    },
  };
}
