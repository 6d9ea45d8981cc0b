import { z } from 'zod';
import { providerJson, ProviderError, retryAfterOf, type ProviderFetch } from '../../provider-errors.js';

/**
 * A Bluesky client, written against the AT Protocol lexicons the public AppView serves without
 * authentication (`https://public.api.bsky.app/xrpc/…`): `app.bsky.actor.getProfile` (a handle or
 * DID to the account's DID and current handle), `app.bsky.feed.getAuthorFeed` (the account's posts
 * and replies, newest first, `cursor` paging, at most 100 a page) and `app.bsky.feed.getPostThread`
 * (a post with its replies as a tree). XRPC errors are `{error, message}` bodies: an unknown account
 * is `400 InvalidRequest` ("Profile not found"), a deleted post `400 NotFound`. Past the per-IP limit
 * (3,000 requests in 5 minutes when written) the AppView answers 429 with `Retry-After` in seconds
 * and `RateLimit-Reset` as an epoch second.
 */

const Actor = z
  .object({ did: z.string().min(1), handle: z.string().min(1), displayName: z.string().nullish() })
  .passthrough();
const PostRecord = z.object({ text: z.string().default(''), createdAt: z.string().nullish() }).passthrough();
const PostView = z
  .object({
    uri: z.string().startsWith('at://'),
    cid: z.string(),
    author: Actor,
    record: PostRecord,
    replyCount: z.number().int().nonnegative().nullish(),
    indexedAt: z.string(),
  })
  .passthrough();
/** `replyRef.root`: a post view, or a not-found / blocked stub that still carries its uri. */
const RootRef = z.object({ uri: z.string().startsWith('at://') }).passthrough();
const FeedViewPost = z
  .object({
    post: PostView,
    reply: z.object({ root: RootRef, parent: RootRef }).passthrough().nullish(),
    /** A repost or a pin: the post shown is not the account's own new activity. */
    reason: z.object({ $type: z.string().optional() }).passthrough().nullish(),
  })
  .passthrough();
const AuthorFeed = z.object({ cursor: z.string().nullish(), feed: z.array(FeedViewPost) });

/** A thread node: a post with replies, or a stub (`notFound`, `blocked`) with neither. */
interface ThreadNode {
  post?: z.infer<typeof PostView>;
  replies?: ThreadNode[];
}
const ThreadNodeSchema: z.ZodType<ThreadNode> = z.lazy(() =>
  z
    .object({
      post: PostView.optional(),
      replies: z.array(ThreadNodeSchema).optional(),
    })
    .passthrough(),
);
const PostThread = z.object({ thread: ThreadNodeSchema });
const XrpcError = z.object({ error: z.string().optional(), message: z.string().optional() }).passthrough();

export interface BlueskyActor {
  did: string;
  handle: string;
  displayName: string | null;
}

export interface BlueskyPost {
  uri: string;
  author: BlueskyActor;
  text: string;
  /** The author's own clock (`record.createdAt`), or null when absent or unparseable. */
  createdAt: string | null;
  /** When the AppView first saw the post: a server clock, so replies order by it. */
  indexedAt: string;
  replyCount: number;
}

export interface BlueskyFeedItem {
  post: BlueskyPost;
  /** The thread's first post when this item is a reply, else null (the post starts its own thread). */
  rootUri: string | null;
  /** A repost or a pin: not the account's own new activity. */
  shared: boolean;
}

/** Replies read under a post: deep enough for any real conversation, bounded for a viral one. */
export const THREAD_DEPTH = 100;
export const FEED_PAGE_SIZE = 50;

const actorOf = (a: z.infer<typeof Actor>): BlueskyActor => ({
  did: a.did,
  handle: a.handle,
  displayName: a.displayName?.trim() || null,
});
const postOf = (p: z.infer<typeof PostView>): BlueskyPost => ({
  uri: p.uri,
  author: actorOf(p.author),
  text: p.record.text,
  createdAt: p.record.createdAt && !Number.isNaN(Date.parse(p.record.createdAt)) ? p.record.createdAt : null,
  indexedAt: p.indexedAt,
  replyCount: p.replyCount ?? 0,
});

/** Raised for an account or post the AppView does not know (deleted, taken down, renamed away). */
export class BlueskyNotFound extends ProviderError {
  constructor(what: string) {
    super('config', `${what} was not found on Bluesky.`);
  }
}

export class BlueskyClient {
  constructor(private readonly options: { baseUrl: string; fetch?: ProviderFetch; now?: () => Date }) {}

  /** The account behind a handle (or DID): how a connection is checked and pinned to a stable DID. */
  async profile(actor: string): Promise<BlueskyActor> {
    const json = await this.query('app.bsky.actor.getProfile', { actor }, `The account ${actor}`);
    const parsed = Actor.safeParse(json);
    if (!parsed.success) throw new ProviderError('unknown', 'Bluesky sent a profile in an unexpected shape.');
    return actorOf(parsed.data);
  }

  /** One page of the account's feed (its posts, replies and reposts), newest first. */
  async authorFeed(actor: string, cursor: string | null): Promise<{ items: BlueskyFeedItem[]; next: string | null }> {
    const json = await this.query(
      'app.bsky.feed.getAuthorFeed',
      { actor, limit: String(FEED_PAGE_SIZE), filter: 'posts_with_replies', ...(cursor ? { cursor } : {}) },
      `The account ${actor}`,
    );
    const parsed = AuthorFeed.safeParse(json);
    if (!parsed.success)
      throw new ProviderError('unknown', 'Bluesky sent a feed page in an unexpected shape; it will be read again.');
    const items = parsed.data.feed.map((item) => ({
      post: postOf(item.post),
      rootUri: item.reply?.root.uri ?? null,
      shared: Boolean(item.reason),
    }));
    // The AppView ends a feed with an absent cursor; an empty page with a cursor would loop.
    return { items, next: items.length > 0 ? (parsed.data.cursor ?? null) : null };
  }

  /**
   * A thread's posts, the root first and every reply the AppView shows (deleted and blocked ones
   * are stubs and left out), or null when the root itself is gone.
   */
  async thread(uri: string): Promise<BlueskyPost[] | null> {
    let json: unknown;
    try {
      json = await this.query(
        'app.bsky.feed.getPostThread',
        { uri, depth: String(THREAD_DEPTH), parentHeight: '0' },
        'The post',
      );
    } catch (error) {
      if (error instanceof BlueskyNotFound) return null;
      throw error;
    }
    const parsed = PostThread.safeParse(json);
    if (!parsed.success)
      throw new ProviderError('unknown', 'Bluesky sent a thread in an unexpected shape; it will be read again.');
    if (!parsed.data.thread.post) return null;
    const posts: BlueskyPost[] = [];
    const pending: ThreadNode[] = [parsed.data.thread];
    while (pending.length > 0) {
      const node = pending.pop() as ThreadNode;
      if (!node.post) continue;
      posts.push(postOf(node.post));
      for (const reply of node.replies ?? []) pending.push(reply);
    }
    return posts;
  }

  private async query(nsid: string, params: Record<string, string>, subject: string): Promise<unknown> {
    const fetchImpl = this.options.fetch ?? ((url: string, init: RequestInit) => fetch(url, init));
    const url = `${this.options.baseUrl.replace(/\/+$/, '')}/xrpc/${nsid}?${new URLSearchParams(params).toString()}`;
    let response: Response;
    try {
      response = await fetchImpl(url, {
        method: 'GET',
        headers: { accept: 'application/json' },
        signal: AbortSignal.timeout(30_000),
      });
    } catch {
      throw new ProviderError('transient', 'Bluesky could not be reached; the page will be tried again.');
    }
    if (response.status === 400) {
      // XRPC names the error: its name (and for InvalidRequest, whether it says "not found") is read; its text is never passed on.
      const body = XrpcError.safeParse(await response.json().catch(() => null));
      const name = body.success ? body.data.error : undefined;
      if (
        name === 'NotFound' ||
        (name === 'InvalidRequest' && /not found/i.test(body.success ? (body.data.message ?? '') : ''))
      )
        throw new BlueskyNotFound(subject);
      if (name === 'AccountTakedown' || name === 'AccountDeactivated')
        throw new ProviderError('config', `${subject} is suspended or deactivated on Bluesky.`);
      throw new ProviderError('config', `Bluesky refused the request (${name ?? 'HTTP 400'}).`);
    }
    return providerJson('Bluesky', response, () => {
      const now = this.options.now?.() ?? new Date();
      return (
        retryAfterOf(response.headers.get('retry-after'), now) ?? resetIn(response.headers.get('ratelimit-reset'), now)
      );
    });
  }
}

/** Seconds until an epoch-second `RateLimit-Reset`, when a 429 carries no Retry-After. */
function resetIn(value: string | null, now: Date): number | null {
  if (!value || !/^\d+$/.test(value)) return null;
  return Math.max(1, Number(value) - Math.floor(now.getTime() / 1000));
}
