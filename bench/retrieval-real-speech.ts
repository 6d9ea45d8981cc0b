/**
 * Retrieval on real meetings nobody here wrote (QMSum's train and validation meetings, committed in
 * test-data/qmsum), against the gold evidence spans human annotators marked for each specific query.
 *
 * Loaded the way a client loads calls: one account per meeting (as a CRM would hold it), one
 * `call_webhook` connection, each meeting pushed to its signed ingest URL as one call, the chair
 * (the project manager of a design meeting, the committee's chair) on our side and everyone else
 * external. Then, for each query, the search the agents run for "what did they say about X" (the
 * semantic lane with `ranking: 'hybrid'`, hydrated to turns, audience customer_voice; its default
 * `ranking: 'similarity'` beside it) scoped to the meeting's account: its
 * first 10 turns. Beside it, in the same run, BM25 over the same meeting's turns (all of them, as
 * the gold spans count the chair's too; and over the external turns the lane can return).
 *
 * Reported per domain (AMI product design, committee) and half: precision@10 (gold turns among the
 * 10, over 10) and recall (gold turns found, over the query's gold turns), the ratio to BM25, and
 * how many top-10 lists hold a short generic turn (at most SHORT_WORDS words: "Sounds good.").
 * Train meetings are the tuning half; validation meetings are the reported half (`--half tune` to
 * see the tuning half).
 *
 *   npx tsx bench/retrieval-real-speech.ts [--half tune|report|both]
 */
import { Webhook } from 'standardwebhooks';
import { createApiKey } from '../functions/identity/api-keys.js';
import { ensureMembership, ensureUser } from '../functions/identity/members.js';
import { API_PREFIX } from '../functions/http/env.js';
import { issueAccessToken } from '../functions/identity/oauth-tokens.js';
import { newId } from '../platform/ids.js';
import { accounts, oauthClients } from '../schema/index.js';
import { systemClock } from '../platform/clock.js';
import { Bm25 } from '../functions/search/bm25.js';
import { LiftedRateLimiter } from './corpus-db.js';
import { openEmptyBenchApp } from './engine.js';
import { goldTurns, isChair, loadQmsum, type QmsumMeeting } from './qmsum-data.js';
import { printTable } from './report.js';

/** A turn of at most this many words is short: it can be on topic, it cannot say much. */
export const SHORT_WORDS = 5;
const TOP = 10;
const TEXT_MAX = 20_000;

export const retrievalRealSpeechTitle = (half: string) =>
  `Retrieval on real meetings (QMSum ${half}): scoped semantic search (ranking hybrid and similarity, hydrated, top ${TOP} turns) vs. BM25 over the same meeting's turns, against the gold spans`;

export type App = Awaited<ReturnType<typeof openEmptyBenchApp>>;

export interface Loaded {
  meeting: QmsumMeeting;
  accountId: string;
  /** Original turn index of each turn the warehouse stored (empty turns are not pushed). */
  pushed: number[];
}

const slug = (s: string) =>
  s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '.')
    .slice(0, 40)
    .replace(/^\.|\.$/g, '') || 'speaker';

/** Push every meeting as one call of its own account through the call webhook. */
export async function loadMeetings(app: App, request: Requester, meetings: readonly QmsumMeeting[]): Promise<Loaded[]> {
  const connection = await request('POST', '/connections', {
    oauth: true,
    connector_type: 'call_webhook',
    display_name: 'Meeting recorder',
    call_filters: { enabled: false },
  });
  if (connection.status !== 200) throw new Error(`connect: ${connection.status} ${connection.text}`);
  const { url, secret } = connection.body.data.ingest as { url: string; secret: string };
  const hook = new Webhook(secret);
  const loaded: Loaded[] = [];
  for (const [n, meeting] of meetings.entries()) {
    const domain = `${meeting.id.toLowerCase().replace(/_/g, '-')}.qmsum.test`;
    const accountId = newId();
    await app.handle.db.insert(accounts).values({
      id: accountId,
      workspaceId: app.workspaceId,
      name: `${meeting.id} ${meeting.domain === 'product' ? 'Design' : 'Committee'}`,
      domain,
      type: 'customer',
    });
    const emailOf = (speaker: string) =>
      isChair(meeting, speaker) ? `${slug(speaker)}@our-team.test` : `${slug(speaker)}@${domain}`;
    const speakers = [...new Set(meeting.turns.map((t) => t.speaker))];
    const pushed: number[] = [];
    const transcript = meeting.turns.flatMap((t, i) => {
      const text = t.text.trim().slice(0, TEXT_MAX);
      if (!/[a-z0-9]/i.test(text)) return [];
      pushed.push(i);
      const side = isChair(meeting, t.speaker) ? ('internal' as const) : ('external' as const);
      return [{ speaker_email: emailOf(t.speaker), speaker_name: t.speaker.slice(0, 200), side, text }];
    });
    const body = JSON.stringify({
      items: [
        {
          type: 'call',
          id: meeting.id,
          title: `${meeting.id} meeting`,
          started_at: new Date(Date.UTC(2026, 5, 1 + n, 9)).toISOString(),
          participants: speakers.map((s) => ({
            email: emailOf(s),
            name: s.slice(0, 200),
            side: isChair(meeting, s) ? 'internal' : 'external',
          })),
          transcript,
        },
      ],
    });
    const msgId = `msg_${meeting.id}`;
    const now = new Date();
    const res = await app.app.fetch(
      new Request(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'webhook-id': msgId,
          'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
          'webhook-signature': hook.sign(msgId, now, body),
        },
        body,
      }),
    );
    if (res.status >= 300) throw new Error(`push ${meeting.id}: ${res.status} ${await res.text()}`);
    loaded.push({ meeting, accountId, pushed });
  }
  await app.queue.drain();
  return loaded;
}

interface Reply {
  status: number;
  text: string;
  /** The API's JSON, read field by field where used. */
  body: any;
}
/** `oauth: true` in the body sends the admin's OAuth token instead of the API key (connecting needs one). */
export type Requester = (method: string, path: string, body?: Record<string, unknown>) => Promise<Reply>;

/** An admin's API key on the bench workspace, and requests made with it through the app. */
export async function requester(app: App): Promise<Requester> {
  const userId = await ensureUser(app.handle.db, 'admin@our-team.test');
  await ensureMembership(app.handle.db, app.workspaceId, userId, 'admin');
  const { key } = await createApiKey(app.handle.db, {
    workspaceId: app.workspaceId,
    userId,
    name: 'bench',
    bundle: 'full_admin',
    role: 'admin',
    expiresAt: null,
  });
  await app.handle.db
    .insert(oauthClients)
    .values({ id: 'bench-client', name: 'bench', redirectUris: ['http://localhost/cb'] });
  const { accessToken } = await issueAccessToken(app.handle.db, app.services.credentials.oauth, {
    workspaceId: app.workspaceId,
    userId,
    clientId: 'bench-client',
    scopes: ['connections:read', 'connections:write', 'data:read'],
    ttlSeconds: 3600,
    now: new Date(),
  });
  return async (method, path, input) => {
    const { oauth, ...body } = input ?? {};
    const response = await app.app.fetch(
      new Request(`${app.services.config.publicUrl}${API_PREFIX}${path}`, {
        method,
        headers: {
          ...(oauth ? { authorization: `Bearer ${accessToken}` } : { 'x-api-key': key }),
          'content-type': 'application/json',
        },
        ...(input === undefined ? {} : { body: JSON.stringify(body) }),
      }),
    );
    const text = await response.text();
    return { status: response.status, text, body: text ? JSON.parse(text) : undefined };
  };
}

/** The agents' "what did they say about X" search, kept to one account: its first TOP turns (original indexes). */
async function productTop(
  request: Requester,
  loaded: Loaded,
  query: string,
  ranking: 'hybrid' | 'similarity',
): Promise<number[]> {
  const res = await request('POST', '/search/query', {
    query,
    mode: 'semantic',
    ranking,
    hydrate: true,
    audience: 'customer_voice',
    limit: 50,
    filters: [{ field: 'account_id', op: 'eq', value: loaded.accountId }],
  });
  if (res.status !== 200) throw new Error(`search: ${res.status} ${res.text}`);
  const rows = res.body.data.results as { turn_index: number }[];
  return rows.slice(0, TOP).map((r) => loaded.pushed[r.turn_index] ?? -1);
}

interface QueryFigures {
  domain: string;
  precision: number;
  recall: number;
  similarityPrecision: number;
  similarityShortInTop: boolean;
  bm25Precision: number;
  bm25Recall: number;
  bm25ExtPrecision: number;
  shortInTop: boolean;
  bm25ShortInTop: boolean;
}

const words = (text: string) => (text.match(/[A-Za-z0-9']+/g) ?? []).length;

function judge(top: readonly number[], gold: ReadonlySet<number>): { precision: number; recall: number } {
  const hits = top.filter((i) => gold.has(i)).length;
  return { precision: hits / TOP, recall: gold.size > 0 ? hits / gold.size : 0 };
}

/** Every query of the meetings, measured; the meetings are loaded into a fresh workspace first. */
export async function measureRealSpeech(meetings: readonly QmsumMeeting[]): Promise<QueryFigures[]> {
  // search.query's per-user limit is lifted (bench/corpus-db.ts): a run makes hundreds of searches.
  const app = await openEmptyBenchApp({ limiter: new LiftedRateLimiter(systemClock) });
  try {
    const request = await requester(app);
    const loaded = await loadMeetings(app, request, meetings);
    const figures: QueryFigures[] = [];
    for (const l of loaded) {
      const texts = l.meeting.turns.map((t) => t.text);
      const all = new Bm25(texts);
      const externalIdx = l.pushed.filter((i) => !isChair(l.meeting, l.meeting.turns[i]!.speaker));
      const external = new Bm25(externalIdx.map((i) => texts[i]!));
      const isShort = (i: number) => i >= 0 && words(texts[i] ?? '') <= SHORT_WORDS;
      for (const q of l.meeting.queries) {
        const gold = goldTurns(q);
        const top = await productTop(request, l, q.query, 'hybrid');
        const bySimilarity = await productTop(request, l, q.query, 'similarity');
        const bm25 = all.top(q.query, TOP);
        const bm25Ext = external.top(q.query, TOP).map((j) => externalIdx[j]!);
        const mine = judge(top, gold);
        const base = judge(bm25, gold);
        figures.push({
          domain: l.meeting.domain,
          precision: mine.precision,
          recall: mine.recall,
          similarityPrecision: judge(bySimilarity, gold).precision,
          similarityShortInTop: bySimilarity.some(isShort),
          bm25Precision: base.precision,
          bm25Recall: base.recall,
          bm25ExtPrecision: judge(bm25Ext, gold).precision,
          shortInTop: top.some(isShort),
          bm25ShortInTop: bm25.some(isShort),
        });
      }
    }
    return figures;
  } finally {
    await app.close();
  }
}

const mean = (xs: readonly number[]) => (xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length);
const f3 = (x: number) => x.toFixed(3);

/** One row per domain: the product's figures beside BM25's, and the ratio. */
export function summarize(figures: readonly QueryFigures[]): Record<string, string | number>[] {
  return ['product', 'committee'].map((domain) => {
    const mine = figures.filter((f) => f.domain === domain);
    const p = mean(mine.map((f) => f.precision));
    const bp = mean(mine.map((f) => f.bm25Precision));
    const bep = mean(mine.map((f) => f.bm25ExtPrecision));
    return {
      domain,
      queries: mine.length,
      'P@10 hybrid': f3(p),
      'P@10 similarity': f3(mean(mine.map((f) => f.similarityPrecision))),
      'BM25 P@10': f3(bp),
      ratio: bp > 0 ? `${(p / bp).toFixed(2)}x` : 'n/a',
      'BM25 ext P@10': f3(bep),
      'ratio ext': bep > 0 ? `${(p / bep).toFixed(2)}x` : 'n/a',
      recall: f3(mean(mine.map((f) => f.recall))),
      'BM25 recall': f3(mean(mine.map((f) => f.bm25Recall))),
      [`top 10 with a turn <= ${SHORT_WORDS} words`]: `${mine.filter((f) => f.shortInTop).length} (similarity ${mine.filter((f) => f.similarityShortInTop).length}, BM25 ${mine.filter((f) => f.bm25ShortInTop).length})`,
    };
  });
}

export async function benchRetrievalRealSpeech(
  half: 'tune' | 'report' = 'report',
): Promise<Record<string, string | number>[]> {
  const split = half === 'tune' ? 'train' : 'val';
  return summarize(await measureRealSpeech(loadQmsum().meetings.filter((m) => m.split === split)));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const at = process.argv.indexOf('--half');
  const asked = at > 0 ? process.argv[at + 1] : 'report';
  for (const half of asked === 'both'
    ? (['tune', 'report'] as const)
    : ([asked === 'tune' ? 'tune' : 'report'] as const))
    printTable(
      retrievalRealSpeechTitle(
        half === 'tune' ? 'train meetings, the tuning half' : 'validation meetings, the reported half',
      ),
      await benchRetrievalRealSpeech(half),
    );
  process.exit(0);
}
