import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BlueskyClient } from '../../functions/connections/connectors/bluesky/client.js';
import { ProviderError } from '../../functions/connections/provider-errors.js';
import { textHash } from '../../platform/text-hash.js';
import {
  connections,
  interactions,
  participants,
  transcriptTurns,
  utterances,
  utteranceVectors,
} from '../../schema/index.js';
import { FakeBluesky, type BlueskyFakePost } from '../support/fake-providers.js';
import { connectionsWorld, expectEnvelope, START, type ConnectionsWorld } from './support.js';

const BRAND = { did: 'did:plc:acmebrand', handle: 'acme.com', displayName: 'Acme' };
const DANA = { did: 'did:plc:dana', handle: 'dana.bsky.social', displayName: 'Dana Diaz' };
const GIL = { did: 'did:plc:gil', handle: 'gil.example.org' };
const IVY = { did: 'did:plc:ivy', handle: 'ivy.bsky.social', displayName: 'Ivy' };

const at = (days: number, minutes = 0) =>
  new Date(Date.parse(START) - days * 86_400_000 + minutes * 60_000).toISOString();
const post = (
  rkey: string,
  author: { did: string },
  text: string,
  when: string,
  parentUri?: string,
): BlueskyFakePost => ({
  uri: `at://${author.did}/app.bsky.feed.post/${rkey}`,
  authorDid: author.did,
  text,
  createdAt: when,
  indexedAt: when,
  ...(parentUri ? { parentUri } : {}),
});

const RESIDENCY = post('p1', BRAND, 'We just shipped EU data residency for every plan.\nDetails on the blog.', at(3));
const DANA_REPLY = post(
  'r1',
  DANA,
  'Finally! Our compliance team needed the data to stay in Frankfurt.',
  at(3, 30),
  RESIDENCY.uri,
);
const BRAND_THANKS = post('r2', BRAND, 'Glad it helps, Dana.', at(3, 45), DANA_REPLY.uri);
const GIL_NESTED = post('r3', GIL, 'Same here. The SSO setup was painful though.', at(2), DANA_REPLY.uri);
const QUIET = post('p2', BRAND, 'Happy Friday from the Acme team.', at(2, 10));
const EXPORT_COMPLAINT = post(
  'c1',
  IVY,
  'Is anyone else seeing the CSV export time out in Acme? It fails after 30 seconds.',
  at(1),
);
const BRAND_SORRY = post(
  'r4',
  BRAND,
  'Sorry about that, Ivy. A fix for the export timeout is rolling out today.',
  at(1, 20),
  EXPORT_COMPLAINT.uri,
);
const MONOLOGUE = post('p3', BRAND, 'A thread on our roadmap (1/2).', at(1, 40));
const MONOLOGUE_2 = post('p4', BRAND, 'Part two: better reports.', at(1, 41), MONOLOGUE.uri);
const ANCIENT = post('p5', BRAND, 'Our launch day, long ago.', at(400));
const ANCIENT_REPLY = post('r5', DANA, 'I remember the pricing page from launch day.', at(399), ANCIENT.uri);

describe('Bluesky: connect by handle, sync public threads as customer voice', () => {
  let w: ConnectionsWorld;
  let bluesky: FakeBluesky;
  let connectionId: string;

  beforeAll(async () => {
    bluesky = await new FakeBluesky().start();
    bluesky.pageSize = 3;
    bluesky.accounts.push(BRAND, DANA, GIL, IVY);
    // Copies: tests mark the fake's posts deleted.
    bluesky.posts.push(
      ...[
        RESIDENCY,
        DANA_REPLY,
        BRAND_THANKS,
        GIL_NESTED,
        QUIET,
        EXPORT_COMPLAINT,
        BRAND_SORRY,
        MONOLOGUE,
        MONOLOGUE_2,
        ANCIENT,
        ANCIENT_REPLY,
      ].map((p) => ({ ...p })),
    );
    // A repost is not the account's own activity.
    bluesky.posts.push({ ...post('c1', IVY, '', at(0, -5)), uri: EXPORT_COMPLAINT.uri, repostedBy: BRAND.did });
    w = await connectionsWorld({ BLUESKY_API_BASE_URL: bluesky.url });
  }, 60_000);
  afterAll(async () => {
    await w?.close();
    await bluesky?.stop();
  });

  const threads = () =>
    w.h.database.db
      .select()
      .from(interactions)
      .where(and(eq(interactions.workspaceId, w.ws.id), eq(interactions.source, 'bluesky')))
      .orderBy(interactions.occurredAt);
  const turnsOf = (interactionId: string) =>
    w.h.database.db
      .select()
      .from(transcriptTurns)
      .where(eq(transcriptTurns.interactionId, interactionId))
      .orderBy(transcriptTurns.turnIndex);
  const connection = async () => (await w.api('GET', `/connections/${connectionId}`)).body.data;
  const search = async (body: Record<string, unknown>) => {
    const res = await w.api('POST', '/search/query', { body });
    expect(res.status, res.text).toBe(200);
    return res.body.data as { mode_ran: string; results: Record<string, unknown>[] };
  };
  const syncNow = async () => {
    await w.h.database.db
      .update(connections)
      .set({ nextSyncAt: w.clock.now() })
      .where(eq(connections.id, connectionId));
    await w.tick();
    await w.settle();
  };

  it('lists Bluesky as a connectable handle source', async () => {
    const catalog = (await w.api('GET', '/connections/catalog')).body.data;
    const entry = catalog.connectors.find((c: { type: string }) => c.type === 'bluesky');
    expect(entry).toMatchObject({
      category: 'social',
      authMethod: 'handle',
      connectable: true,
      unavailableReason: null,
      connect: {
        method: 'handle',
        fields: [{ key: 'account_handle', secret: false, resupplyOnReconnect: false }],
        keyUrl: null,
      },
      single_instance: false,
      ownership: 'workspace',
    });
  });

  it('refuses a malformed handle, an unknown account and an api_key, naming the field; nothing is stored', async () => {
    const malformed = expectEnvelope(
      await w.api('POST', '/connections', { body: { connector_type: 'bluesky', account_handle: 'not a handle!' } }),
      400,
      'invalid_argument',
    );
    expect(malformed.details.field).toBe('account_handle');
    const unknown = expectEnvelope(
      await w.api('POST', '/connections', {
        body: { connector_type: 'bluesky', account_handle: 'nobody.bsky.social' },
      }),
      400,
      'invalid_argument',
    );
    expect(unknown.details).toMatchObject({ field: 'account_handle', connector_type: 'bluesky' });
    expect(
      expectEnvelope(
        await w.api('POST', '/connections', { body: { connector_type: 'bluesky', api_key: 'x' } }),
        400,
        'invalid_argument',
      ).details.field,
    ).toBe('api_key');
    expect(
      expectEnvelope(
        await w.api('POST', '/connections', { body: { connector_type: 'bluesky' } }),
        400,
        'invalid_argument',
      ).details.field,
    ).toBe('account_handle');
    // The profile lookup is the provider check; the fake saw the unknown handle only.
    expect(bluesky.requests.filter((r) => r.path.endsWith('getProfile')).length).toBe(1);
    expect((await w.api('GET', '/connections')).body.data.total).toBe(0);
  });

  it('connects @Acme.com as written by people, pinned to the account DID, and starts the first sync', async () => {
    const res = await w.api('POST', '/connections', {
      body: { connector_type: 'bluesky', account_handle: ' @Acme.com ' },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data).toMatchObject({ mode: 'connected', connection: { fields: { account_handle: 'acme.com' } } });
    expect(res.body.data.sync_run_id).toEqual(expect.any(String));
    connectionId = res.body.data.connection.id;
    const [stored] = await w.h.database.db.select().from(connections).where(eq(connections.id, connectionId));
    expect(stored?.fields).toEqual({ account_handle: 'acme.com', account_did: BRAND.did });
    // The same account again, by its profile link: the connection it already has.
    const again = await w.api('POST', '/connections', {
      body: { connector_type: 'bluesky', account_handle: 'https://bsky.app/profile/acme.com' },
    });
    expect(again.body.data).toMatchObject({ mode: 'already_connected', connection: { id: connectionId } });
  });

  it('syncs the threads the account started or joined, in the window, each post a turn, the account internal and everyone else external', async () => {
    await w.settle();
    const run = (await w.api('GET', `/connections/${connectionId}/runs`)).body.data.runs[0];
    // Two threads hold customer voice; the account's own monologue is skipped.
    expect(run).toMatchObject({
      status: 'complete',
      streams_total: 1,
      streams_failed: 0,
      records_written: 2,
      error_reason: null,
    });
    const rows = await threads();
    expect(rows.map((r) => [r.kind, r.externalId, r.title])).toEqual([
      ['post', RESIDENCY.uri, 'We just shipped EU data residency for every plan.'],
      [
        'post',
        EXPORT_COMPLAINT.uri,
        'Is anyone else seeing the CSV export time out in Acme? It fails after 30 seconds.',
      ],
    ]);
    expect(rows[0]).toMatchObject({
      durationSeconds: null,
      direction: null,
      participantCount: 3,
      externalParticipantCount: 2,
      occurredAt: new Date(RESIDENCY.createdAt),
    });
    const turns = await turnsOf(rows[0]!.id);
    expect(turns.map((t) => [t.speakerName, t.side, t.text])).toEqual([
      ['Acme (@acme.com)', 'internal', 'We just shipped EU data residency for every plan. Details on the blog.'],
      ['Dana Diaz (@dana.bsky.social)', 'external', DANA_REPLY.text],
      ['Acme (@acme.com)', 'internal', BRAND_THANKS.text],
      ['@gil.example.org', 'external', GIL_NESTED.text],
    ]);
    const said = await w.h.database.db.select().from(utterances).where(eq(utterances.interactionId, rows[0]!.id));
    expect(said.filter((u) => u.side === 'external').every((u) => u.embedder === w.h.services.embedder.id)).toBe(true);
    // Threads were read only where there was something to read: none for a post nobody answered or a
    // repost; the residency thread, seen on two feed pages, was read on each (the second wrote nothing).
    const threadReads = bluesky.requests.filter((r) => r.path.endsWith('getPostThread'));
    expect(threadReads.length).toBe(4);
    expect(threadReads.map((r) => new URLSearchParams(r.query).get('uri'))).not.toContain(QUIET.uri);
    expect(
      bluesky.requests
        .filter((r) => r.path.endsWith('getAuthorFeed'))
        .every((r) => new URLSearchParams(r.query).get('actor') === BRAND.did),
    ).toBe(true);
    // The feed was paged with the AppView's cursor, by DID.
    expect(bluesky.requests.filter((r) => r.path.endsWith('getAuthorFeed')).length).toBeGreaterThan(1);
  });

  it('summarizes what the connection holds, live', async () => {
    const summary = (await w.api('GET', `/connections/${connectionId}/summary`)).body.data;
    expect(summary).toMatchObject({
      category: 'social',
      synced: true,
      crm: null,
      calls: null,
      social: { threads: 2, posts: 6, people: 3, latest_thread_at: EXPORT_COMPLAINT.createdAt },
    });
    expect(summary.social.embedded_utterances).toBeGreaterThan(0);
  });

  it('makes the threads findable: fuzzy by their words, semantic by a customer sentence, filter by kind', async () => {
    const fuzzy = await search({ query: 'compliance team Frankfurt', mode: 'fuzzy' });
    expect(JSON.stringify(fuzzy.results)).toContain('EU data residency');
    const semantic = await search({
      query: 'Is anyone else seeing the CSV export time out in Acme?',
      mode: 'semantic',
      limit: 3,
    });
    expect(semantic.mode_ran).toBe('semantic');
    expect(JSON.stringify(semantic.results[0])).toContain('CSV export');
    const filtered = await search({
      mode: 'filter',
      surface: 'interactions',
      filters: [{ field: 'kind', op: 'eq', value: 'post' }],
    });
    expect(filtered.results.length).toBe(2);
  });

  it('changes nothing when nothing changed on Bluesky', async () => {
    const before = (
      await w.h.database.db
        .select({ id: transcriptTurns.id })
        .from(transcriptTurns)
        .where(eq(transcriptTurns.workspaceId, w.ws.id))
    )
      .map((t) => t.id)
      .sort();
    await w.clock.advance(20 * 60_000);
    await syncNow();
    const run = (await w.api('GET', `/connections/${connectionId}/runs`)).body.data.runs[0];
    expect(run).toMatchObject({ status: 'complete', records_written: 0 });
    const after = (
      await w.h.database.db
        .select({ id: transcriptTurns.id })
        .from(transcriptTurns)
        .where(eq(transcriptTurns.workspaceId, w.ws.id))
    )
      .map((t) => t.id)
      .sort();
    expect(after).toEqual(before);
  });

  it('rewrites a thread whose replies changed: a new reply joins, a deleted one leaves with its vector', async () => {
    bluesky.posts.find((p) => p.uri === GIL_NESTED.uri)!.deleted = true;
    const nowIso = w.clock.now().toISOString();
    bluesky.posts.push(post('r6', IVY, 'Does residency cover backups too?', nowIso, RESIDENCY.uri));
    await w.clock.advance(20 * 60_000);
    await syncNow();
    const [residency] = await threads();
    const turns = await turnsOf(residency!.id);
    expect(turns.map((t) => t.text)).toEqual([
      'We just shipped EU data residency for every plan. Details on the blog.',
      DANA_REPLY.text,
      BRAND_THANKS.text,
      'Does residency cover backups too?',
    ]);
    const roster = await w.h.database.db
      .select()
      .from(participants)
      .where(eq(participants.interactionId, residency!.id));
    expect(roster.map((p) => p.name).sort()).toEqual([
      'Acme (@acme.com)',
      'Dana Diaz (@dana.bsky.social)',
      'Ivy (@ivy.bsky.social)',
    ]);
    expect(residency).toMatchObject({ participantCount: 3, externalParticipantCount: 2 });
    const vectors = await w.h.database.db
      .select({ textHash: utteranceVectors.textHash })
      .from(utteranceVectors)
      .where(eq(utteranceVectors.workspaceId, w.ws.id));
    const hashes = new Set(vectors.map((v) => v.textHash));
    expect(hashes.has(textHash('The SSO setup was painful though.'))).toBe(false);
    expect(hashes.has(textHash('Does residency cover backups too?'))).toBe(true);
    expect(hashes.has(textHash('Our compliance team needed the data to stay in Frankfurt.'))).toBe(true);
    const gone = await search({ query: 'SSO setup painful', mode: 'fuzzy' });
    expect(JSON.stringify(gone.results)).not.toContain('SSO setup');
  });

  it('waits out a 429 as Retry-After says, showing rate_limited, then finishes', async () => {
    bluesky.failNext('feed', {
      status: 429,
      headers: { 'retry-after': '90', 'ratelimit-limit': '3000', 'ratelimit-remaining': '0' },
      body: { error: 'RateLimitExceeded', message: 'Rate Limit Exceeded' },
    });
    await w.h.database.db
      .update(connections)
      .set({ nextSyncAt: w.clock.now() })
      .where(eq(connections.id, connectionId));
    await w.tick();
    await w.drain();
    const waiting = await connection();
    expect(waiting.health).toBe('rate_limited');
    expect(Date.parse(waiting.rate_limited_until) - w.clock.now().getTime()).toBe(90_000);
    await w.settle();
    expect(await connection()).toMatchObject({
      health: 'healthy',
      last_run: { status: 'complete', error_reason: null },
    });
  });

  it('fails as config, without provider text, when the account is gone; disconnect keeps the threads; reconnect restores in place', async () => {
    bluesky.accounts.splice(bluesky.accounts.indexOf(BRAND), 1);
    await w.clock.advance(20 * 60_000);
    await syncNow();
    const broken = await connection();
    expect(broken).toMatchObject({ health: 'error', last_run: { status: 'failed', error_reason: 'config' } });
    expect(JSON.stringify(broken)).not.toContain('Profile not found');
    expect((await w.api('DELETE', `/connections/${connectionId}`)).body.data).toMatchObject({ status: 'disconnected' });
    expect((await threads()).length).toBe(2);
    bluesky.accounts.push(BRAND);
    const res = await w.api('POST', `/connections/${connectionId}/reconnect`, { body: {} });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data).toMatchObject({ mode: 'connected', connection: { id: connectionId, status: 'connected' } });
    await w.settle();
    expect((await w.api('GET', '/connections')).body.data.total).toBe(1);
    expect(await connection()).toMatchObject({ health: 'healthy' });
  });

  it('treats every account the workspace connected as its own side, and shares a thread two of them are in', async () => {
    const HELP = { did: 'did:plc:acmehelp', handle: 'help.acme.com', displayName: 'Acme Help' };
    bluesky.accounts.push(HELP);
    bluesky.posts.push(
      post('h1', HELP, 'The export fix is live for everyone now.', w.clock.now().toISOString(), BRAND_SORRY.uri),
    );
    const before = (await w.api('GET', `/connections/${connectionId}/summary`)).body.data.social;
    const res = await w.api('POST', '/connections', {
      body: { connector_type: 'bluesky', account_handle: 'help.acme.com', display_name: 'Acme Help' },
    });
    expect(res.body.data.mode, res.text).toBe('connected');
    const helpId = res.body.data.connection.id;
    const fresh = (await w.api('GET', `/connections/${helpId}/summary`)).body.data;
    expect(fresh).toMatchObject({
      synced: false,
      social: { threads: null, posts: null, people: null, embedded_utterances: null, latest_thread_at: null },
    });
    await w.settle();
    const rows = await threads();
    expect(rows.map((r) => r.externalId)).toEqual([RESIDENCY.uri, EXPORT_COMPLAINT.uri]);
    const turns = await turnsOf(rows[1]!.id);
    expect(turns.map((t) => [t.speakerName, t.side])).toEqual([
      ['Ivy (@ivy.bsky.social)', 'external'],
      ['Acme (@acme.com)', 'internal'],
      ['Acme Help (@help.acme.com)', 'internal'],
    ]);
    expect((await w.api('GET', `/connections/${helpId}/summary`)).body.data.social).toMatchObject({
      threads: 1,
      posts: 3,
      people: 1,
    });
    expect((await w.api('GET', `/connections/${connectionId}/summary`)).body.data.social.threads).toBe(before.threads);
  });

  it('lets a thread go when its first post is deleted or its outside replies are, once no connection holds it', async () => {
    const syncAll = async () => {
      await w.clock.advance(20 * 60_000);
      await w.h.database.db
        .update(connections)
        .set({ nextSyncAt: w.clock.now() })
        .where(eq(connections.connectorType, 'bluesky'));
      await w.tick();
      await w.settle();
    };
    // Two threads the account started and never answered in: once their posts go, its feed no longer
    // points at them, so only reading back what the connection holds can notice.
    const pricing = post('p6', BRAND, 'New pricing page is live.', w.clock.now().toISOString());
    const pricingReply = post(
      'r7',
      DANA,
      'The per seat price went up for us.',
      w.clock.now().toISOString(),
      pricing.uri,
    );
    const webinar = post('p7', BRAND, 'Webinar on Thursday.', w.clock.now().toISOString());
    const webinarReply = post(
      'r8',
      GIL,
      'Will there be a recording of the webinar?',
      w.clock.now().toISOString(),
      webinar.uri,
    );
    bluesky.posts.push(pricing, pricingReply, webinar, webinarReply);
    await syncAll();
    expect((await threads()).map((t) => t.externalId)).toEqual(expect.arrayContaining([pricing.uri, webinar.uri]));

    pricing.deleted = true;
    webinarReply.deleted = true;
    for (const p of bluesky.posts)
      if (!p.repostedBy && (p.uri === RESIDENCY.uri || p.uri === EXPORT_COMPLAINT.uri)) p.deleted = true;
    await syncAll();
    expect(await threads()).toEqual([]);
    const vectors = await w.h.database.db
      .select({ textHash: utteranceVectors.textHash })
      .from(utteranceVectors)
      .where(eq(utteranceVectors.workspaceId, w.ws.id));
    expect(vectors.map((v) => v.textHash)).not.toContain(
      textHash('Our compliance team needed the data to stay in Frankfurt.'),
    );
    const fuzzy = await search({ query: 'compliance team Frankfurt', mode: 'fuzzy' });
    expect(JSON.stringify(fuzzy.results)).not.toContain('EU data residency');
  });

  it('connects by handle over MCP too, and a synced account with nothing to keep says 0, not null', async () => {
    const NEWS = { did: 'did:plc:acmenews', handle: 'news.acme.com' };
    bluesky.accounts.push(NEWS);
    bluesky.posts.push(post('n1', NEWS, 'Release notes for November.', w.clock.now().toISOString()));
    const transport = new StreamableHTTPClientTransport(
      new URL(`${w.h.services.config.publicUrl}/api/platform/v1/mcp`),
      {
        fetch: (url, init) => w.h.fetch(new Request(url, init)),
        requestInit: { headers: { authorization: `Bearer ${w.admin}` } },
      },
    );
    const client = new Client({ name: 'bluesky-test', version: '1.0.0' });
    await client.connect(transport);
    const connected = (await client.callTool({
      name: 'connections',
      arguments: { action: 'connect', connector_type: 'bluesky', account_handle: '@news.acme.com' },
    })) as {
      isError?: boolean;
      structuredContent?: Record<string, any>;
    };
    expect(connected.isError, JSON.stringify(connected.structuredContent)).toBeFalsy();
    expect(connected.structuredContent).toMatchObject({
      mode: 'connected',
      connection: { fields: { account_handle: 'news.acme.com' } },
    });
    await w.settle();
    const id = connected.structuredContent?.connection.id as string;
    const resource = await client.readResource({ uri: `connection://${id}/summary` });
    const summary = JSON.parse((resource.contents[0] as { text: string }).text);
    expect(summary).toMatchObject({
      synced: true,
      social: { threads: 0, posts: 0, people: 0, embedded_utterances: 0, latest_thread_at: null },
    });
    await client.close();
  });

  it('keeps another workspace out', async () => {
    const other = await w.h.seedWorkspace('Elsewhere');
    const token = await other.tokenFor(other.admin, ['connections:read', 'data:read']);
    expect((await w.h.request('GET', `/connections/${connectionId}`, { bearer: token })).status).toBe(404);
    const res = await w.h.request('POST', '/search/query', {
      bearer: token,
      body: { mode: 'filter', surface: 'interactions', filters: [{ field: 'kind', op: 'eq', value: 'post' }] },
    });
    expect(res.body.data.results).toEqual([]);
  });
});

describe('Bluesky client, against the AppView fake', () => {
  let bluesky: FakeBluesky;
  let client: BlueskyClient;
  const now = new Date('2026-06-01T12:00:00Z');
  beforeAll(async () => {
    bluesky = await new FakeBluesky().start();
    bluesky.accounts.push(BRAND, DANA);
    bluesky.posts.push({ ...RESIDENCY }, { ...DANA_REPLY });
    client = new BlueskyClient({ baseUrl: bluesky.url, now: () => now });
  });
  afterAll(async () => bluesky?.stop());

  const failure = async (p: Promise<unknown>): Promise<ProviderError> => {
    const error = await p.then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ProviderError);
    return error as ProviderError;
  };

  it('reads a profile by handle or DID, and a thread as its posts', async () => {
    expect(await client.profile('acme.com')).toEqual({ did: BRAND.did, handle: 'acme.com', displayName: 'Acme' });
    expect((await client.profile(DANA.did)).handle).toBe(DANA.handle);
    expect((await client.thread(RESIDENCY.uri))?.map((p) => p.uri)).toEqual([RESIDENCY.uri, DANA_REPLY.uri]);
    expect(await client.thread(`at://${BRAND.did}/app.bsky.feed.post/deleted`)).toBeNull();
  });

  it('classifies 429 (Retry-After, else RateLimit-Reset), 5xx, a malformed page and an unknown account', async () => {
    bluesky.failNext('feed', { status: 429, headers: { 'retry-after': '45' }, body: { error: 'RateLimitExceeded' } });
    expect(await failure(client.authorFeed(BRAND.did, null))).toMatchObject({
      reason: 'rate_limit',
      retryAfterSeconds: 45,
    });
    bluesky.failNext('feed', {
      status: 429,
      headers: { 'ratelimit-reset': String(Math.floor(now.getTime() / 1000) + 200) },
      body: { error: 'RateLimitExceeded' },
    });
    expect(await failure(client.authorFeed(BRAND.did, null))).toMatchObject({
      reason: 'rate_limit',
      retryAfterSeconds: 200,
    });
    bluesky.failNext('thread', { status: 502, body: 'upstream' });
    expect((await failure(client.thread(RESIDENCY.uri))).reason).toBe('transient');
    bluesky.failNext('feed', { status: 200, body: { feed: [{ post: { uri: 'not-an-at-uri' } }] } });
    const malformed = await failure(client.authorFeed(BRAND.did, null));
    expect(malformed.reason).toBe('unknown');
    expect(malformed.message).not.toContain('not-an-at-uri');
    expect((await failure(client.profile('ghost.bsky.social'))).reason).toBe('config');
  });
});
