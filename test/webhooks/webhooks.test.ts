import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { eq } from 'drizzle-orm';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { API_PREFIX } from '../../functions/http/env.js';
import { emitEvent, type EventEnvelope } from '../../functions/webhooks/events.js';
import { ManualClock } from '../../platform/clock.js';
import { nodeOutboundHttp } from '../../platform/net/node-http.js';
import { RETRY_SCHEDULE_SECONDS } from '../../functions/webhooks/delivery-pipeline.js';
import { loadRun } from '../../queues/run-store.js';
import type { LocalTransport } from '../../queues/transport/local.js';
import { runs, webhooks } from '../../schema/index.js';
import { createHarness, type Harness, type SeededWorkspace } from '../support/harness.js';
import { startFakeServer, type FakeServer } from '../support/fake-http-server.js';

// Start at the real time: the standardwebhooks verifier checks the timestamp against Date.now().
const clock = new ManualClock(new Date());
let h: Harness;
let ws: SeededWorkspace;
let other: SeededWorkspace;

// ---- a local receiver, scripted per test --------------------------------------------------------

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}
type Responder = (req: Received, res: ServerResponse) => void;
const received: Received[] = [];
let respond: Responder = (_req, res) => res.writeHead(200).end('ok');
let receiver: FakeServer;
let base: string;

beforeAll(async () => {
  receiver = await startFakeServer((req, res) => {
    const entry = { path: req.url, headers: req.headers, body: req.body };
    received.push(entry);
    respond(entry, res);
  });
  base = receiver.url;
  h = await createHarness({ clock, env: { ALLOW_LOOPBACK_WEBHOOKS: '1' } });
  ws = await h.seedWorkspace();
  other = await h.seedWorkspace();
});
afterAll(async () => {
  await h?.close();
  if (receiver) await receiver.close();
});
afterEach(() => {
  respond = (_req, res) => res.writeHead(200).end('ok');
});

// ---- helpers ------------------------------------------------------------------------------------

const local = () => h.services.queue as LocalTransport;
const drain = () => local().drain();
const hitsAt = (path: string) => received.filter((r) => r.path === path);

interface CreatedHook {
  id: string;
  secret: string;
  url: string;
  created_at: string;
}

async function register(
  path: string,
  events: string[] = ['session.completed'],
  key = ws.admin.key,
): Promise<CreatedHook> {
  const res = await h.request('POST', '/webhooks', { key, body: { url: `${base}${path}`, events } });
  expect(res.status, res.text).toBe(201);
  return res.body.data as CreatedHook;
}

const deliveries = async (id: string, key = ws.admin.key, query: Record<string, number> = {}) => {
  const res = await h.request('GET', `/webhooks/${id}/deliveries`, { key, query });
  expect(res.status, res.text).toBe(200);
  return res.body.data as {
    deliveries: Array<{
      id: string;
      event_id: string;
      event: string;
      payload: EventEnvelope;
      status_code: number | null;
      attempt: number;
      error: string | null;
    }>;
    total: number;
  };
};

const ping = async (id: string, key = ws.admin.key) => {
  const res = await h.request('POST', `/webhooks/${id}/ping`, { key });
  expect(res.status, res.text).toBe(202);
  return res.body.data as { run_id: string; event_id: string; webhook_id: string; event: string; status: string };
};

const runRow = async (id: string) => {
  const row = await loadRun(h.services.db, id);
  if (!row) throw new Error('run vanished');
  return row;
};

const expectInvalid = (res: { status: number; body: any; text: string }, field: string) => {
  expect(res.status, res.text).toBe(400);
  expect(res.body.error.code).toBe('invalid_argument');
  expect(res.body.error.details.fields.map((f: { field: string }) => f.field)).toContain(field);
  return res.body.error.details.fields.find((f: { field: string }) => f.field === field);
};

/** The independent implementation's own signature for a received delivery. */
const expectedSignature = (secret: string, r: Received) =>
  new StandardWebhook(secret).sign(
    String(r.headers['webhook-id']),
    new Date(Number(r.headers['webhook-timestamp']) * 1000),
    r.body,
  );

const deleteHook = async (id: string) => {
  const res = await h.request('DELETE', `/webhooks/${id}`, { key: ws.admin.key });
  expect(res.status, res.text).toBe(200);
};

// ---- 1. CRUD, validation, limits, scopes --------------------------------------------------------

describe('webhook CRUD over REST', () => {
  it('creates (secret once), lists newest first with paging, reads, updates and deletes', async () => {
    const crud = await h.seedWorkspace();
    const key = crud.admin.key;
    const created: CreatedHook[] = [];
    for (const [i, events] of [
      ['session.completed'],
      ['artifact.created', 'artifact.updated'],
      ['artifact.status_changed'],
    ].entries()) {
      const res = await h.request('POST', '/webhooks', { key, body: { url: `${base}/crud/${i}`, events } });
      expect(res.status, res.text).toBe(201);
      expect(res.body.data).toMatchObject({
        business_id: crud.id,
        user_id: crud.admin.userId,
        url: `${base}/crud/${i}`,
        events,
        active: true,
        disabled_reason: null,
      });
      expect(res.body.data.secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
      created.push(res.body.data);
      await clock.advance(1_000);
    }
    expect(new Set(created.map((c) => c.secret)).size).toBe(3);

    const list = await h.request('GET', '/webhooks', { key });
    expect(list.status).toBe(200);
    expect(list.body.data).toMatchObject({ total: 3, limit: 50, offset: 0 });
    expect(list.body.data.webhooks.map((w: { id: string }) => w.id)).toEqual(created.map((c) => c.id).reverse());
    for (const w of list.body.data.webhooks) expect(w).not.toHaveProperty('secret');
    expect(list.text).not.toContain('whsec_');

    const page1 = await h.request('GET', '/webhooks', { key, query: { limit: 2, offset: 0 } });
    expect(page1.body.data).toMatchObject({ total: 3, limit: 2, offset: 0 });
    expect(page1.body.data.webhooks.map((w: { id: string }) => w.id)).toEqual([created[2]!.id, created[1]!.id]);
    const page2 = await h.request('GET', '/webhooks', { key, query: { limit: 2, offset: 2 } });
    expect(page2.body.data).toMatchObject({ total: 3, limit: 2, offset: 2 });
    expect(page2.body.data.webhooks.map((w: { id: string }) => w.id)).toEqual([created[0]!.id]);

    const first = created[0]!;
    const got = await h.request('GET', `/webhooks/${first.id}`, { key });
    expect(got.status).toBe(200);
    const { secret: _secret, ...withoutSecret } = first;
    expect(got.body.data).toEqual(withoutSecret);
    expect(got.text).not.toContain('whsec_');

    await clock.advance(1_000);
    const patched = await h.request('PATCH', `/webhooks/${first.id}`, {
      key,
      body: { url: `${base}/crud/moved`, events: ['artifact.created', 'session.completed'], active: false },
    });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body.data).toMatchObject({
      id: first.id,
      url: `${base}/crud/moved`,
      events: ['artifact.created', 'session.completed'],
      active: false,
    });
    expect(patched.body.data).not.toHaveProperty('secret');
    expect(patched.text).not.toContain('whsec_');
    expect(Date.parse(patched.body.data.updated_at)).toBeGreaterThan(Date.parse(first.created_at));
    const partial = await h.request('PATCH', `/webhooks/${first.id}`, { key, body: { active: true } });
    expect(partial.body.data).toMatchObject({
      url: `${base}/crud/moved`,
      events: ['artifact.created', 'session.completed'],
      active: true,
    });
    expect((await h.request('GET', `/webhooks/${first.id}`, { key })).body.data).toEqual(partial.body.data);

    const deleted = await h.request('DELETE', `/webhooks/${first.id}`, { key });
    expect(deleted.status).toBe(200);
    expect(deleted.body.data).toEqual({ deleted: true });
    for (const [method, path] of [
      ['GET', ''],
      ['DELETE', ''],
      ['GET', '/deliveries'],
      ['POST', '/ping'],
    ] as const) {
      const res = await h.request(method, `/webhooks/${first.id}${path}`, { key });
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    }
    const gone = await h.request('PATCH', `/webhooks/${first.id}`, { key, body: { active: false } });
    expect(gone.status).toBe(404);
    expect((await h.request('GET', '/webhooks', { key })).body.data.total).toBe(2);
  });

  it('refuses invalid bodies with 400 invalid_argument naming the field', async () => {
    const key = ws.admin.key;
    const post = (body: unknown) => h.request('POST', '/webhooks', { key, body });
    const url = `${base}/valid`;

    expectInvalid(await post({ url, events: [] }), 'events');
    const unknown = expectInvalid(await post({ url, events: ['session.finished'] }), 'events.0');
    expect(unknown.allowed).toEqual([
      'artifact.created',
      'artifact.updated',
      'artifact.status_changed',
      'session.completed',
    ]);
    const repeated = expectInvalid(await post({ url, events: ['session.completed', 'session.completed'] }), 'events');
    expect(repeated.problem).toMatch(/repeat/);
    const extra = expectInvalid(await post({ url, events: ['session.completed'], secret: 'whsec_mine' }), 'secret');
    expect(extra).toMatchObject({ code: 'unknown_field', allowed: ['url', 'events'] });
    expect(expectInvalid(await post({ events: ['session.completed'] }), 'url').problem).toBe('required');
    expectInvalid(await post({ url }), 'events');
    expectInvalid(await post({ url: `${base}/${'x'.repeat(2100)}`, events: ['session.completed'] }), 'url');
    expectInvalid(await post({ url: 'not a url', events: ['session.completed'] }), 'url');

    const badJson = await h.request('POST', '/webhooks', {
      key,
      body: '{"url": "http://127.0.0.1/", "events": [',
      headers: { 'content-type': 'application/json' },
    });
    expect(badJson.status, badJson.text).toBe(400);
    expect(badJson.body.error.code).toBe('invalid_argument');

    const hook = await register('/valid');
    const empty = await h.request('PATCH', `/webhooks/${hook.id}`, { key, body: {} });
    expect(empty.status, empty.text).toBe(400);
    expect(empty.body.error.code).toBe('invalid_argument');
    expect(empty.body.error.message).toMatch(/url, events, active/);
    expectInvalid(await h.request('PATCH', `/webhooks/${hook.id}`, { key, body: { events: [] } }), 'events');
    expectInvalid(await h.request('PATCH', `/webhooks/${hook.id}`, { key, body: { active: 'yes' } }), 'active');
    expectInvalid(await h.request('PATCH', `/webhooks/${hook.id}`, { key, body: { secret: 'x' } }), 'secret');
    expectInvalid(
      await h.request('PATCH', `/webhooks/${hook.id}`, { key, body: { url: `${base}/${'y'.repeat(2100)}` } }),
      'url',
    );
    expectInvalid(await h.request('GET', '/webhooks/not-a-uuid', { key }), 'id');
    // Nothing changed.
    expect((await h.request('GET', `/webhooks/${hook.id}`, { key })).body.data).toMatchObject({
      url: `${base}/valid`,
      events: ['session.completed'],
      active: true,
    });
    await deleteHook(hook.id);
  });

  it('limits a workspace to 20 webhooks: the 21st is 409 conflict', async () => {
    const full = await h.seedWorkspace();
    for (let i = 0; i < 20; i++) {
      const res = await h.request('POST', '/webhooks', {
        key: full.admin.key,
        body: { url: `${base}/limit/${i}`, events: ['session.completed'] },
      });
      expect(res.status, res.text).toBe(201);
    }
    const over = await h.request('POST', '/webhooks', {
      key: full.admin.key,
      body: { url: `${base}/limit/20`, events: ['session.completed'] },
    });
    expect(over.status, over.text).toBe(409);
    expect(over.body.error).toMatchObject({ code: 'conflict', details: { limit: 20 } });
    expect((await h.request('GET', '/webhooks', { key: full.admin.key, query: { limit: 1 } })).body.data.total).toBe(
      20,
    );
    // The limit is per workspace.
    const elsewhere = await register('/limit/other');
    await deleteHook(elsewhere.id);
  });

  it('enforces scopes and roles', async () => {
    const hook = await register('/scopes');
    // customer_agent keys carry no webhooks scopes.
    for (const [method, path, body] of [
      ['POST', '/webhooks', { url: `${base}/x`, events: ['session.completed'] }],
      ['GET', '/webhooks', undefined],
      ['GET', `/webhooks/${hook.id}`, undefined],
      ['POST', `/webhooks/${hook.id}/ping`, undefined],
    ] as const) {
      const res = await h.request(method, path, { key: ws.editor.key, ...(body ? { body } : {}) });
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(res.body.error.code).toBe('scope_denied');
    }
    // A viewer holding webhooks:write still lacks the editor role to write; it may read.
    const viewerToken = await ws.tokenFor(ws.viewer, ['webhooks:read', 'webhooks:write']);
    const denied = await h.request('POST', '/webhooks', {
      bearer: viewerToken,
      body: { url: `${base}/x`, events: ['session.completed'] },
    });
    expect(denied.status, denied.text).toBe(403);
    expect(denied.body.error.code).toBe('insufficient_role');
    for (const [method, path, body] of [
      ['PATCH', `/webhooks/${hook.id}`, { active: false }],
      ['DELETE', `/webhooks/${hook.id}`, undefined],
      ['POST', `/webhooks/${hook.id}/ping`, undefined],
    ] as const) {
      const res = await h.request(method, path, { bearer: viewerToken, ...(body ? { body } : {}) });
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(res.body.error.code).toBe('insufficient_role');
    }
    const read = await h.request('GET', `/webhooks/${hook.id}`, { bearer: viewerToken });
    expect(read.status).toBe(200);
    expect(read.body.data.active).toBe(true);
    // An editor with the scopes may write.
    const editorToken = await ws.tokenFor(ws.editor, ['webhooks:read', 'webhooks:write']);
    const editorCreates = await h.request('POST', '/webhooks', {
      bearer: editorToken,
      body: { url: `${base}/editor`, events: ['session.completed'] },
    });
    expect(editorCreates.status, editorCreates.text).toBe(201);
    expect(editorCreates.body.data.user_id).toBe(ws.editor.userId);
    await deleteHook(editorCreates.body.data.id);
    await deleteHook(hook.id);
  });

  it('creates and lists over MCP (tool webhooks)', async () => {
    const mcpWs = await h.seedWorkspace();
    const transport = new StreamableHTTPClientTransport(new URL(`${h.services.config.publicUrl}${API_PREFIX}/mcp`), {
      fetch: async (url, init) => h.fetch(new Request(url, init)),
      requestInit: { headers: { 'X-API-Key': mcpWs.admin.key } },
    });
    const client = new Client({ name: 'webhooks-test', version: '0.0.1' });
    await client.connect(transport);
    try {
      type ToolResult = { isError?: boolean; structuredContent?: Record<string, any> };
      const created = (await client.callTool({
        name: 'webhooks',
        arguments: { action: 'create', url: `${base}/mcp`, events: ['artifact.created'] },
      })) as ToolResult;
      expect(created.isError).toBeFalsy();
      expect(created.structuredContent).toMatchObject({
        business_id: mcpWs.id,
        url: `${base}/mcp`,
        events: ['artifact.created'],
        active: true,
      });
      expect(created.structuredContent?.secret).toMatch(/^whsec_/);
      const listed = (await client.callTool({ name: 'webhooks', arguments: { action: 'list' } })) as ToolResult;
      expect(listed.isError).toBeFalsy();
      expect(listed.structuredContent).toMatchObject({ total: 1, limit: 50, offset: 0 });
      expect(listed.structuredContent?.webhooks.map((w: { id: string }) => w.id)).toEqual([
        created.structuredContent?.id,
      ]);
      expect(JSON.stringify(listed.structuredContent)).not.toContain('whsec_');
      const rest = await h.request('GET', '/webhooks', { key: mcpWs.admin.key });
      expect(listed.structuredContent).toEqual(rest.body.data);
      const bad = (await client.callTool({
        name: 'webhooks',
        arguments: { action: 'create', url: `${base}/mcp`, events: [] },
      })) as ToolResult;
      expect(bad.isError).toBe(true);
      expect(bad.structuredContent).toMatchObject({
        error: { code: 'invalid_argument', details: { fields: [{ field: 'events' }] } },
      });
    } finally {
      await client.close();
    }
  });
});

// ---- 2. deliveries --------------------------------------------------------------------------------

describe('deliveries to a local receiver', () => {
  let pinged: { hook: CreatedHook; deliveryId: string } | undefined;

  it('pings: one signed POST of the envelope that verifies with standardwebhooks, recorded as a delivery', async () => {
    const hook = await register('/ping');
    const queued = await ping(hook.id);
    expect(queued).toMatchObject({
      webhook_id: hook.id,
      event: 'webhook.ping',
      status: 'queued',
      run_id: expect.any(String),
      event_id: expect.stringMatching(/^evt_/),
    });
    await drain();

    const hits = hitsAt('/ping');
    expect(hits).toHaveLength(1);
    const hit = hits[0]!;
    const envelope = JSON.parse(hit.body) as EventEnvelope;
    expect(envelope).toEqual({
      id: queued.event_id,
      type: 'webhook.ping',
      created_at: expect.any(String),
      business_id: ws.id,
      data: expect.objectContaining({ webhook_id: hook.id }),
    });
    expect(Number.isNaN(Date.parse(envelope.created_at))).toBe(false);
    expect(hit.headers['content-type']).toBe('application/json');
    expect(hit.headers['webhook-id']).toBe(queued.event_id);
    expect(hit.headers['webhook-timestamp']).toBe(String(Math.floor(clock.now().getTime() / 1000)));
    expect(hit.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);

    // The independent implementation verifies it ...
    const verifier = new StandardWebhook(hook.secret);
    const headers = {
      'webhook-id': String(hit.headers['webhook-id']),
      'webhook-timestamp': String(hit.headers['webhook-timestamp']),
      'webhook-signature': String(hit.headers['webhook-signature']),
    };
    expect(verifier.verify(hit.body, headers)).toEqual(envelope);
    // ... and refuses a tampered body, a tampered id, or another secret.
    expect(() => verifier.verify(hit.body.replace('webhook.ping', 'webhook.pong'), headers)).toThrow();
    expect(() => verifier.verify(hit.body, { ...headers, 'webhook-id': 'evt_other' })).toThrow();
    expect(() =>
      new StandardWebhook(`whsec_${Buffer.from('another secret entirely').toString('base64')}`).verify(
        hit.body,
        headers,
      ),
    ).toThrow();

    const list = await deliveries(hook.id);
    expect(list.total).toBe(1);
    expect(list.deliveries[0]).toMatchObject({
      webhook_id: hook.id,
      event_id: queued.event_id,
      event: 'webhook.ping',
      status_code: 200,
      attempt: 1,
      error: null,
      payload: envelope,
    });
    const run = await runRow(queued.run_id);
    expect(run.status).toBe('complete');
    expect(run.outputs).toMatchObject({ deliver: { outcome: 'delivered', status_code: 200 } });
    pinged = { hook, deliveryId: list.deliveries[0]!.id };
  });

  it('hides another workspace\u2019s webhook: 404 on get, patch, delete, deliveries, ping and redeliver', async () => {
    if (!pinged) throw new Error('needs the ping test');
    const { hook, deliveryId } = pinged;
    const key = other.admin.key;
    const attempts: Array<[string, string, unknown]> = [
      ['GET', `/webhooks/${hook.id}`, undefined],
      ['PATCH', `/webhooks/${hook.id}`, { active: false }],
      ['DELETE', `/webhooks/${hook.id}`, undefined],
      ['GET', `/webhooks/${hook.id}/deliveries`, undefined],
      ['POST', `/webhooks/${hook.id}/ping`, undefined],
      ['POST', `/webhooks/${hook.id}/deliveries/${deliveryId}/redeliver`, undefined],
    ];
    for (const [method, path, body] of attempts) {
      const res = await h.request(method, path, { key, ...(body ? { body } : {}) });
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    }
    expect(
      (await h.request('GET', '/webhooks', { key })).body.data.webhooks.map((w: { id: string }) => w.id),
    ).not.toContain(hook.id);
    // A delivery id under a different webhook of the right workspace is not found either.
    const sibling = await register('/sibling');
    const crossed = await h.request('POST', `/webhooks/${sibling.id}/deliveries/${deliveryId}/redeliver`, {
      key: ws.admin.key,
    });
    expect(crossed.status).toBe(404);
    // Still intact for its owner.
    expect((await h.request('GET', `/webhooks/${hook.id}`, { key: ws.admin.key })).body.data.active).toBe(true);
    expect(hitsAt('/ping')).toHaveLength(1);
    await deleteHook(sibling.id);
    await deleteHook(hook.id);
  });
});

// ---- 3. the event bus -----------------------------------------------------------------------------

describe('the event bus', () => {
  it('delivers only to the workspace\u2019s active webhooks subscribed to the event, after commit', async () => {
    const subscribed = await register('/bus/subscribed', ['session.completed', 'artifact.created']);
    const unsubscribed = await register('/bus/unsubscribed', ['artifact.created']);
    const inactive = await register('/bus/inactive', ['session.completed']);
    expect(
      (await h.request('PATCH', `/webhooks/${inactive.id}`, { key: ws.admin.key, body: { active: false } })).status,
    ).toBe(200);
    const foreign = await register('/bus/foreign', ['session.completed'], other.admin.key);

    const data = { session_id: '0195f0c4-0000-7000-8000-000000000001', summary: 'done' };
    const emitted = await h.services.engine.transaction((scope) =>
      emitEvent(scope, { workspaceId: ws.id, type: 'session.completed', data, at: clock.now() }),
    );
    expect(emitted.deliveries).toBe(1);
    await drain();

    const hits = hitsAt('/bus/subscribed');
    expect(hits).toHaveLength(1);
    const envelope = JSON.parse(hits[0]!.body) as EventEnvelope;
    expect(envelope).toEqual({
      id: emitted.eventId,
      type: 'session.completed',
      created_at: clock.now().toISOString(),
      business_id: ws.id,
      data,
    });
    expect(hits[0]!.body).toBe(JSON.stringify(envelope));
    expect(hits[0]!.headers['webhook-signature']).toBe(expectedSignature(subscribed.secret, hits[0]!));
    expect(hitsAt('/bus/unsubscribed')).toHaveLength(0);
    expect(hitsAt('/bus/inactive')).toHaveLength(0);
    expect(hitsAt('/bus/foreign')).toHaveLength(0);
    expect((await deliveries(subscribed.id)).deliveries).toMatchObject([
      { event_id: emitted.eventId, event: 'session.completed', status_code: 200, attempt: 1 },
    ]);
    expect((await deliveries(unsubscribed.id)).total).toBe(0);
    expect((await deliveries(inactive.id)).total).toBe(0);

    // A transaction that fails after emitting delivers nothing and leaves no run behind.
    const runsBefore = (await h.services.db.select({ id: runs.id }).from(runs)).length;
    await expect(
      h.services.engine.transaction(async (scope) => {
        const result = await emitEvent(scope, {
          workspaceId: ws.id,
          type: 'artifact.created',
          data: { artifact_id: 'a1' },
          at: clock.now(),
        });
        expect(result.deliveries).toBe(2);
        throw new Error('the artifact write failed');
      }),
    ).rejects.toThrow('the artifact write failed');
    await drain();
    expect(hitsAt('/bus/subscribed')).toHaveLength(1);
    expect(hitsAt('/bus/unsubscribed')).toHaveLength(0);
    expect((await h.services.db.select({ id: runs.id }).from(runs)).length).toBe(runsBefore);

    // The other workspace's event reaches its own webhook only.
    const foreignEvent = await h.services.engine.transaction((scope) =>
      emitEvent(scope, { workspaceId: other.id, type: 'session.completed', data: {}, at: clock.now() }),
    );
    expect(foreignEvent.deliveries).toBe(1);
    await drain();
    expect(hitsAt('/bus/foreign')).toHaveLength(1);
    expect(hitsAt('/bus/subscribed')).toHaveLength(1);

    for (const hook of [subscribed, unsubscribed, inactive]) await deleteHook(hook.id);
    expect((await h.request('DELETE', `/webhooks/${foreign.id}`, { key: other.admin.key })).status).toBe(200);
  });
});

// ---- 4. retries ---------------------------------------------------------------------------------

describe('retries', () => {
  it('retries on the schedule, records every attempt, fails the run after 8, and redelivers as attempt 9', async () => {
    expect(RETRY_SCHEDULE_SECONDS).toEqual([5, 300, 1_800, 7_200, 18_000, 36_000, 36_000]);
    respond = (_req, res) => res.writeHead(500).end('boom');
    const hook = await register('/retry');
    const queued = await ping(hook.id);
    await drain();
    expect(hitsAt('/retry')).toHaveLength(1);

    await clock.advance(4_999);
    await drain();
    expect(hitsAt('/retry')).toHaveLength(1);
    await clock.advance(1);
    await drain();
    expect(hitsAt('/retry')).toHaveLength(2);

    for (const [i, seconds] of RETRY_SCHEDULE_SECONDS.slice(1).entries()) {
      await clock.advance(seconds * 1000 - 1);
      await drain();
      expect(hitsAt('/retry'), `just before attempt ${i + 3}`).toHaveLength(i + 2);
      await clock.advance(1);
      await drain();
      expect(hitsAt('/retry'), `attempt ${i + 3}`).toHaveLength(i + 3);
    }
    expect(hitsAt('/retry').map((r) => r.headers['webhook-id'])).toEqual(Array(8).fill(queued.event_id));
    // Each attempt is freshly signed with its own timestamp.
    for (const r of hitsAt('/retry')) expect(r.headers['webhook-signature']).toBe(expectedSignature(hook.secret, r));
    expect(new Set(hitsAt('/retry').map((r) => r.headers['webhook-timestamp'])).size).toBe(8);

    const run = await runRow(queued.run_id);
    expect(run.status).toBe('failed');
    expect(run.error).toMatchObject({ code: 'delivery_exhausted', stage: 'deliver' });
    expect(run.error?.message).toContain('8 attempts');
    await clock.advance(100_000_000);
    await drain();
    expect(hitsAt('/retry')).toHaveLength(8);

    const list = await deliveries(hook.id);
    expect(list.total).toBe(8);
    expect(list.deliveries.map((d) => d.attempt)).toEqual([8, 7, 6, 5, 4, 3, 2, 1]);
    for (const d of list.deliveries)
      expect(d).toMatchObject({
        status_code: 500,
        error: 'HTTP 500',
        event_id: queued.event_id,
        event: 'webhook.ping',
      });
    const paged = await deliveries(hook.id, ws.admin.key, { limit: 3, offset: 3 });
    expect(paged.deliveries.map((d) => d.attempt)).toEqual([5, 4, 3]);

    // The receiver is fixed; redelivering continues the event's attempt count with the same event.
    respond = (_req, res) => res.writeHead(204).end();
    const redelivered = await h.request('POST', `/webhooks/${hook.id}/deliveries/${list.deliveries[0]!.id}/redeliver`, {
      key: ws.admin.key,
    });
    expect(redelivered.status, redelivered.text).toBe(202);
    expect(redelivered.body.data).toMatchObject({
      webhook_id: hook.id,
      event_id: queued.event_id,
      event: 'webhook.ping',
      status: 'queued',
    });
    expect(redelivered.body.data.run_id).not.toBe(queued.run_id);
    await drain();
    const hits = hitsAt('/retry');
    expect(hits).toHaveLength(9);
    expect(hits[8]!.headers['webhook-id']).toBe(queued.event_id);
    expect(hits[8]!.body).toBe(hits[0]!.body);
    expect(hits[8]!.headers['webhook-signature']).toBe(expectedSignature(hook.secret, hits[8]!));
    const after = await deliveries(hook.id);
    expect(after.total).toBe(9);
    expect(after.deliveries[0]).toMatchObject({ attempt: 9, event_id: queued.event_id, status_code: 204, error: null });
    expect((await runRow(redelivered.body.data.run_id)).status).toBe('complete');
    await deleteHook(hook.id);
  });
});

// ---- 5. 410, timeouts, refused connections, delivery-time checks --------------------------------

describe('failures', () => {
  it('disables a webhook that answers 410 Gone; re-activating clears the reason', async () => {
    respond = (_req, res) => res.writeHead(410).end();
    const hook = await register('/gone', ['session.completed']);
    const queued = await ping(hook.id);
    await drain();
    expect(hitsAt('/gone')).toHaveLength(1);
    const disabled = await h.request('GET', `/webhooks/${hook.id}`, { key: ws.admin.key });
    expect(disabled.body.data).toMatchObject({ active: false, disabled_reason: 'gone' });
    expect((await deliveries(hook.id)).deliveries).toMatchObject([{ status_code: 410, attempt: 1, error: 'HTTP 410' }]);
    expect((await runRow(queued.run_id)).status).toBe('complete');

    await clock.advance(RETRY_SCHEDULE_SECONDS[0] * 1000 + 1);
    await drain();
    const emitted = await h.services.engine.transaction((scope) =>
      emitEvent(scope, { workspaceId: ws.id, type: 'session.completed', data: {}, at: clock.now() }),
    );
    expect(emitted.deliveries).toBe(0);
    await drain();
    expect(hitsAt('/gone')).toHaveLength(1);
    const pingInactive = await h.request('POST', `/webhooks/${hook.id}/ping`, { key: ws.admin.key });
    expect(pingInactive.status).toBe(409);
    expect(pingInactive.body.error.code).toBe('invalid_state');

    const revived = await h.request('PATCH', `/webhooks/${hook.id}`, { key: ws.admin.key, body: { active: true } });
    expect(revived.body.data).toMatchObject({ active: true, disabled_reason: null });
    respond = (_req, res) => res.writeHead(200).end();
    await ping(hook.id);
    await drain();
    expect(hitsAt('/gone')).toHaveLength(2);
    await deleteHook(hook.id);
  });

  it('times out a silent endpoint (the outbound port, with a short timeout)', async () => {
    const silent = await startFakeServer(() => {
      // Never answers.
    });
    try {
      // A send that ignored its timeout would hang here until the test's own timeout failed it.
      const result = await nodeOutboundHttp.send({
        method: 'POST',
        url: `${silent.url}/`,
        headers: {},
        body: '{}',
        timeoutMs: 200,
        allowLoopback: true,
      });
      expect(result).toMatchObject({ ok: false, error: 'timeout' });
    } finally {
      await silent.close();
    }
  });

  it('records a refused connection with a null status code and retries it', async () => {
    const closed = await startFakeServer(() => {});
    await closed.close();
    const res = await h.request('POST', '/webhooks', {
      key: ws.admin.key,
      body: { url: `${closed.url}/refused`, events: ['session.completed'] },
    });
    expect(res.status).toBe(201);
    const hook = res.body.data as CreatedHook;
    const queued = await ping(hook.id);
    await drain();
    let list = await deliveries(hook.id);
    expect(list.deliveries).toMatchObject([
      { status_code: null, attempt: 1, error: expect.stringMatching(/^connection_failed/) },
    ]);
    const run = await runRow(queued.run_id);
    expect(run.status).toBe('running');
    expect(run.stage).toBe('deliver');
    await clock.advance(5_000);
    await drain();
    list = await deliveries(hook.id);
    expect(list.deliveries.map((d) => [d.attempt, d.status_code])).toEqual([
      [2, null],
      [1, null],
    ]);
    // Deleting the webhook drops what is pending: the next attempt is skipped.
    await deleteHook(hook.id);
    await clock.advance(300_000);
    await drain();
    const done = await runRow(queued.run_id);
    expect(done.status).toBe('complete');
    expect(done.outputs).toMatchObject({ deliver: { outcome: 'skipped', reason: 'webhook_deleted' } });
  });

  it('checks the url again at delivery time: a stored private address is refused', async () => {
    const hook = await register('/rebound');
    await h.services.db.update(webhooks).set({ url: 'http://10.0.0.1/' }).where(eq(webhooks.id, hook.id));
    const queued = await ping(hook.id);
    await drain();
    expect(hitsAt('/rebound')).toHaveLength(0);
    const list = await deliveries(hook.id);
    expect(list.deliveries).toHaveLength(1);
    expect(list.deliveries[0]).toMatchObject({ status_code: null, attempt: 1 });
    expect(list.deliveries[0]!.error).toMatch(/^blocked/);
    expect((await runRow(queued.run_id)).status).toBe('running'); // retried: DNS or the url may change back
    await deleteHook(hook.id);
    await clock.advance(5_000);
    await drain();
    expect((await runRow(queued.run_id)).status).toBe('complete');
  });

  it('guards DNS at connect time: a name resolving to loopback is blocked when loopback is not allowed', async () => {
    const port = Number(new URL(base).port);
    const blocked = await nodeOutboundHttp.send({
      method: 'POST',
      url: `http://localhost:${port}/dns-guard`,
      headers: {},
      body: '{}',
      timeoutMs: 2_000,
      allowLoopback: false,
    });
    expect(blocked).toMatchObject({ ok: false, error: 'blocked_address' });
    const literal = await nodeOutboundHttp.send({
      method: 'POST',
      url: `http://127.0.0.1:${port}/dns-guard`,
      headers: {},
      body: '{}',
      timeoutMs: 2_000,
      allowLoopback: false,
    });
    expect(literal).toMatchObject({ ok: false, error: 'blocked_address' });
    expect(hitsAt('/dns-guard')).toHaveLength(0);
    const allowed = await nodeOutboundHttp.send({
      method: 'POST',
      url: `http://localhost:${port}/dns-guard`,
      headers: {},
      body: '{}',
      timeoutMs: 2_000,
      allowLoopback: true,
    });
    expect(allowed).toMatchObject({ ok: true, status: 200 });
    expect(hitsAt('/dns-guard')).toHaveLength(1);
  });
});
