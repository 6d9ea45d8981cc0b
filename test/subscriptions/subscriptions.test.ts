import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tickSubscriptions } from '../../functions/subscriptions/scheduler.js';
import { newId } from '../../platform/ids.js';
import { accounts, chats, connections, runs, subscriptionFires, subscriptions } from '../../schema/index.js';
import { connectionsWorld, START, type ConnectionsWorld } from '../connections/support.js';
import { FakeGoogle, type FakeCalendarEvent } from '../support/fake-providers.js';
import type { SeededWorkspace } from '../support/harness.js';

/**
 * Subscriptions on the `calendar.event_upcoming` kind, against the Google Calendar fake: the kinds
 * catalog, CRUD with every refusal, the ledger planned by reads of the calendar (due at
 * max(now, start − lead), never after the start; rescheduled and cancelled events), exactly one
 * fire per occurrence under racing ticks, the hourly cap, the fired headless chat run and its turn,
 * test-fire, the MCP actions and resources, and other tenants' 404s. Facts are read with SQL.
 */

const CALLBACK = '/api/platform/v1/connections/oauth/callback';
const minutes = (n: number) => new Date(Date.parse(START) + n * 60_000).toISOString();

describe('subscriptions', () => {
  let w: ConnectionsWorld;
  let other: SeededWorkspace;
  const google = new FakeGoogle();
  let calendarId: string;
  let hubspotLikeId: string;
  let umbrellaId: string;
  const me = { email: 'admin@seller.test', self: true };

  const api = (method: string, path: string, body?: unknown, key?: string) =>
    w.h.request(method, path, { key: key ?? w.ws.admin.key, ...(body === undefined ? {} : { body }) });
  const fires = (subscriptionId: string) =>
    w.h.database.db
      .select()
      .from(subscriptionFires)
      .where(eq(subscriptionFires.subscriptionId, subscriptionId))
      .orderBy(subscriptionFires.eventStart);
  const meeting = (id: string, summary: string, startMin: number, extra: Partial<FakeCalendarEvent> = {}) =>
    google.put({
      id,
      status: 'confirmed',
      summary,
      start: { dateTime: minutes(startMin) },
      end: { dateTime: minutes(startMin + 30) },
      organizer: { email: me.email, self: true },
      attendees: [me, { email: 'alice@umbrella.test', displayName: 'Alice Wong' }],
      ...extra,
    });
  /** Run the scheduler's step and deliver what it started (reads of the calendar, then fires). */
  const tick = async () => {
    await tickSubscriptions(w.h.services, w.clock.now());
    await w.drain();
  };
  const create = (body: Record<string, unknown>, key?: string) => api('POST', '/subscriptions', body, key);
  const valid = () => ({
    name: 'Meeting prep',
    source_kind: 'calendar.event_upcoming',
    prompt: 'Prep me for this meeting: who is attending and what we last discussed with their company.',
    config: { connection_id: calendarId, lead_minutes: 60, require_attendees: true },
  });

  beforeAll(async () => {
    await google.start();
    w = await connectionsWorld({
      GOOGLE_CLIENT_ID: google.auth.clientId,
      GOOGLE_CLIENT_SECRET: google.auth.clientSecret,
      GOOGLE_ACCOUNTS_URL: google.url,
      GOOGLE_TOKEN_URL: `${google.url}/token`,
      GOOGLE_CALENDAR_API_BASE_URL: google.url,
    });
    other = await w.h.seedWorkspace('Other tenant');
    const res = await w.api('POST', '/connections', { body: { connector_type: 'google_calendar' } });
    calendarId = res.body.data.connection.id;
    const { code, state } = google.auth.consent(res.body.data.authorize_url);
    expect((await w.h.fetch(`${CALLBACK}?${new URLSearchParams({ code, state })}`)).status).toBe(302);
    await w.settle();
    const hub = await w.api('POST', '/connections', { body: { connector_type: 'hubspot', api_key: w.hubspot.token } });
    hubspotLikeId = hub.body.data.connection.id;
    await w.settle();
    umbrellaId = newId();
    await w.h.database.db
      .insert(accounts)
      .values({ id: umbrellaId, workspaceId: w.ws.id, name: 'Umbrella Corp', domain: 'umbrella.test' });
  }, 120_000);
  afterAll(async () => {
    await w?.close();
    await google.stop();
  });

  it('describes each kind and its config fields in the catalog', async () => {
    const res = await api('GET', '/subscriptions/kinds', undefined, w.ws.viewer.key);
    expect(res.status, res.text).toBe(200);
    const [kind] = res.body.data.kinds;
    expect(kind.kind).toBe('calendar.event_upcoming');
    expect(res.body.data.fires_per_workspace_per_hour).toBe(30);
    expect(kind.fields.map((f: { key: string; required: boolean }) => [f.key, f.required])).toEqual([
      ['connection_id', true],
      ['calendar_id', false],
      ['lead_minutes', true],
      ['summary_contains', false],
      ['require_attendees', false],
    ]);
    expect(kind.fields.find((f: { key: string }) => f.key === 'calendar_id').default).toBe('primary');
  });

  it('refuses every invalid field before storing anything, naming it', async () => {
    const theirs = newId();
    await w.h.database.db.insert(connections).values({
      id: theirs,
      workspaceId: other.id,
      connectorType: 'google_calendar',
      status: 'connected',
      createdBy: other.admin.userId,
      caller: {},
    });
    const cases: [Record<string, unknown>, string][] = [
      [{ ...valid(), config: { connection_id: calendarId } }, 'config.lead_minutes'],
      [{ ...valid(), config: { connection_id: calendarId, lead_minutes: -5 } }, 'config.lead_minutes'],
      [{ ...valid(), config: { connection_id: calendarId, lead_minutes: 10, colour: 'red' } }, 'config.colour'],
      [{ ...valid(), config: { connection_id: theirs, lead_minutes: 10 } }, 'config.connection_id'],
      [{ ...valid(), config: { connection_id: hubspotLikeId, lead_minutes: 10 } }, 'config.connection_id'],
      [{ ...valid(), config: { connection_id: newId(), lead_minutes: 10 } }, 'config.connection_id'],
      [{ ...valid(), source_kind: 'crm.deal_moved' }, 'source_kind'],
      [{ ...valid(), agent: 'nobody' }, 'agent'],
      [{ ...valid(), run_config: { on_question: 'pause' } }, 'run_config.on_question'],
      [{ ...valid(), run_config: { actions_allowed: ['launch_rockets'] } }, 'run_config.actions_allowed.0'],
      [{ ...valid(), name: '' }, 'name'],
      [{ ...valid(), colour: 'red' }, 'colour'],
    ];
    for (const [body, field] of cases) {
      const res = await create(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.code).toBe('invalid_argument');
      expect(
        res.body.error.details.fields.map((f: { field: string }) => f.field),
        JSON.stringify(body),
      ).toContain(field);
    }
    const [stored] = await w.h.database.db
      .select({ n: sql<number>`count(*)::int` })
      .from(subscriptions)
      .where(eq(subscriptions.workspaceId, w.ws.id));
    expect(stored!.n).toBe(0);
    // subscriptions:write is not in the editor's default bundle; a viewer is below the role.
    expect((await create(valid(), w.ws.editor.key)).status).toBe(403);
  });

  it('creates, reads, lists, updates (source_kind immutable) and is 404 to another workspace', async () => {
    const res = await create({ ...valid(), agent: 'call-prep', run_config: { actions_allowed: ['email_member'] } });
    expect(res.status, res.text).toBe(201);
    const sub = res.body.data;
    expect(sub).toMatchObject({
      name: 'Meeting prep',
      source_kind: 'calendar.event_upcoming',
      agent: 'call-prep',
      enabled: true,
      config: { connection_id: calendarId, calendar_id: 'primary', lead_minutes: 60, require_attendees: true },
      run_config: { depth: 'standard', actions_allowed: ['email_member'], write_outputs: true },
      source: { next_read_at: START, last_read_at: null, last_error: null },
      last_fire: null,
    });
    expect((await api('GET', `/subscriptions/${sub.id}`, undefined, w.ws.viewer.key)).body.data).toEqual(sub);
    const list = (await api('GET', '/subscriptions', undefined, w.ws.viewer.key)).body.data;
    expect(list.subscriptions.map((s: { id: string }) => s.id)).toContain(sub.id);

    const immutable = await api('PATCH', `/subscriptions/${sub.id}`, { source_kind: 'calendar.event_upcoming' });
    expect(immutable.status).toBe(400);
    expect(immutable.body.error.details.fields[0]).toMatchObject({ field: 'source_kind', code: 'immutable' });
    const patched = await api('PATCH', `/subscriptions/${sub.id}`, { agent: null, name: 'Prep' });
    expect(patched.body.data).toMatchObject({ agent: null, name: 'Prep' });

    for (const [method, path] of [
      ['GET', ''],
      ['GET', '/fires'],
      ['PATCH', ''],
      ['DELETE', ''],
      ['POST', '/test-fire'],
    ] as const) {
      const res = await w.h.request(method, `/subscriptions/${sub.id}${path}`, {
        key: other.admin.key,
        ...(method === 'PATCH' ? { body: { name: 'x' } } : {}),
      });
      expect(res.status, `${method} ${path}`).toBe(404);
    }
    expect((await api('GET', '/subscriptions', undefined, other.admin.key)).body.data.total).toBe(0);
    await api('DELETE', `/subscriptions/${sub.id}`);
  });

  it('plans one fire per matching event at max(now, start − lead), fires it once under racing ticks, as a headless chat run with the event', {
    tags: ['race'],
  }, async () => {
    meeting('soon', 'Umbrella security review', 30); // inside its lead window: due at once
    meeting('later', 'Umbrella renewal', 180); // due at start − 60 min
    meeting('solo', 'Focus time', 90, { attendees: [me] }); // filtered: no one else attends
    meeting('begun', 'Standup that already started', -10);
    google.put({
      id: 'allday',
      status: 'confirmed',
      summary: 'Offsite',
      start: { date: '2026-06-01' },
      end: { date: '2026-06-02' },
    });
    const sub = (await create(valid())).body.data;

    await tick(); // reads the calendar
    let ledger = await fires(sub.id);
    expect(ledger.map((f) => [f.eventId, f.status, f.dueAt.toISOString()])).toEqual([
      ['soon', 'pending', START],
      ['later', 'pending', minutes(120)],
    ]);
    expect(ledger[0]!.event).toMatchObject({
      title: 'Umbrella security review',
      organizer: 'admin@seller.test',
      attendees: [
        { email: 'admin@seller.test', name: null },
        { email: 'alice@umbrella.test', name: 'Alice Wong' },
      ],
    });

    // Two schedulers racing, then the tick repeated: one fire run, one agent run for the due fire.
    await Promise.all([tickSubscriptions(w.h.services, w.clock.now()), tickSubscriptions(w.h.services, w.clock.now())]);
    await tickSubscriptions(w.h.services, w.clock.now());
    await w.drain();
    const fireRuns = await w.h.database.db
      .select()
      .from(runs)
      .where(and(eq(runs.kind, 'subscription_fire'), sql`${runs.input}->>'fire_id' = ${ledger[0]!.id}`));
    expect(fireRuns).toHaveLength(1);
    ledger = await fires(sub.id);
    const fired = ledger.find((f) => f.eventId === 'soon')!;
    expect(fired).toMatchObject({ status: 'fired', runId: expect.any(String), chatId: expect.any(String) });
    expect(fired.event).toMatchObject({ account: { id: umbrellaId, name: 'Umbrella Corp', domain: 'umbrella.test' } });
    expect(ledger.find((f) => f.eventId === 'later')!.status).toBe('pending');

    const [chat] = await w.h.database.db.select().from(chats).where(eq(chats.id, fired.chatId!));
    expect(chat!.subscriptionId).toBe(sub.id);
    const [run] = await w.h.database.db.select().from(runs).where(eq(runs.id, fired.runId!));
    const input = run!.input as Record<string, any>;
    expect(input.trigger).toBe('subscription');
    expect(input.pauses).toEqual({ question: false, approval: false, budget: false });
    expect(input.subscription).toEqual({ id: sub.id, write_outputs: true, actions_allowed: null, write_memory: false });
    for (const text of [
      valid().prompt,
      'Event: Umbrella security review',
      `Starts: ${minutes(30)}`,
      'Organizer: admin@seller.test',
      'Alice Wong <alice@umbrella.test>',
      'Account: Umbrella Corp (umbrella.test',
    ])
      expect(input.message).toContain(text);

    const listed = (await w.h.request('GET', '/chats', { key: w.ws.viewer.key, query: { subscription_id: sub.id } }))
      .body.data;
    expect(
      listed.chats.map((c: { chat_id: string; subscription_id: string }) => [c.chat_id, c.subscription_id]),
    ).toEqual([[fired.chatId, sub.id]]);
    const read = (await api('GET', `/subscriptions/${sub.id}`)).body.data;
    expect(read.last_fire).toMatchObject({ chat_id: fired.chatId, run_id: fired.runId });
    expect(read.source.last_read_at).toBe(START);
    const view = (await api('GET', `/subscriptions/${sub.id}/fires`, undefined, w.ws.viewer.key)).body.data;
    expect(view.total).toBe(2);
    expect(view.fires.find((f: { event_id: string }) => f.event_id === 'soon')).toMatchObject({
      status: 'fired',
      chat_id: fired.chatId,
      skip_reason: null,
    });

    // A repeated read plans nothing twice and never fires an occurrence again.
    await w.clock.advance(5 * 60_000);
    await tick();
    expect((await fires(sub.id)).map((f) => [f.eventId, f.status])).toEqual([
      ['soon', 'fired'],
      ['later', 'pending'],
    ]);
    await api('DELETE', `/subscriptions/${sub.id}`);
  });

  it('cancels the pending fire of a rescheduled event and plans the new start; a cancelled or deleted event cancels it', async () => {
    const now = (Date.parse(w.clock.now().toISOString()) - Date.parse(START)) / 60_000;
    meeting('move', 'Umbrella QBR', now + 300);
    meeting('far', 'Umbrella exec sync', now + 400);
    meeting('drop', 'Umbrella pricing', now + 500);
    const sub = (await create({ ...valid(), config: { ...valid().config, summary_contains: 'umbrella' } })).body.data;
    await tick();
    expect((await fires(sub.id)).filter((f) => f.status === 'pending').map((f) => f.eventId)).toEqual([
      'soon',
      'later',
      'move',
      'far',
      'drop',
    ]);
    meeting('move', 'Umbrella QBR', now + 360); // an hour later
    meeting('far', 'Umbrella exec sync', now + 60 * 24 * 10); // ten days out: outside the window read
    google.put({
      id: 'drop',
      status: 'cancelled',
      summary: 'Umbrella pricing',
      start: { dateTime: minutes(now + 500) },
      end: { dateTime: minutes(now + 530) },
    });
    await w.clock.advance(5 * 60_000);
    await tick();
    const ledger = await fires(sub.id);
    const row = (id: string, start: number) =>
      ledger.find((f) => f.eventId === id && f.eventStart.toISOString() === minutes(start));
    expect(row('move', now + 300)).toMatchObject({ status: 'canceled', reason: 'event_rescheduled' });
    expect(row('move', now + 360)).toMatchObject({ status: 'pending', dueAt: new Date(minutes(now + 300)) });
    expect(row('far', now + 400)).toMatchObject({ status: 'canceled', reason: 'event_rescheduled' });
    expect(row('drop', now + 500)).toMatchObject({ status: 'canceled', reason: 'event_canceled' });
    const view = (await api('GET', `/subscriptions/${sub.id}/fires`, undefined, w.ws.viewer.key)).body.data;
    expect(view.fires.find((f: { event_id: string }) => f.event_id === 'drop').cancel_reason).toBe('event_canceled');
    await api('DELETE', `/subscriptions/${sub.id}`);
  });

  it('skips instead of firing: paused, past the start, over the hourly cap', async () => {
    const sub = (await create(valid())).body.data;
    await tick();
    const pending = (await fires(sub.id)).filter((f) => f.status === 'pending');
    expect(pending.length).toBeGreaterThan(0);
    const db = w.h.database.db;
    // Paused: pending fires are skipped as they come due.
    await api('PATCH', `/subscriptions/${sub.id}`, { enabled: false });
    await db.update(subscriptionFires).set({ dueAt: w.clock.now() }).where(eq(subscriptionFires.id, pending[0]!.id));
    await tick();
    expect(
      (await db.select().from(subscriptionFires).where(eq(subscriptionFires.id, pending[0]!.id)))[0],
    ).toMatchObject({ status: 'skipped', reason: 'subscription_disabled' });
    await api('PATCH', `/subscriptions/${sub.id}`, { enabled: true });

    // The hourly cap: 30 fires already started this hour in the workspace.
    const base = { subscriptionId: sub.id, workspaceId: w.ws.id, leadMinutes: 60, status: 'fired' as const };
    const snapshot = {
      id: 'x',
      title: 'x',
      start: START,
      end: null,
      calendar_id: 'primary',
      organizer: null,
      attendees: [],
      account: null,
    };
    await db.insert(subscriptionFires).values(
      Array.from({ length: 30 }, (_, i) => ({
        ...base,
        id: newId(),
        eventId: `past-${i}`,
        eventStart: w.clock.now(),
        dueAt: w.clock.now(),
        event: snapshot,
        settledAt: new Date(w.clock.now().getTime() - 10 * 60_000),
      })),
    );
    const capped = newId();
    await db.insert(subscriptionFires).values({
      ...base,
      id: capped,
      status: 'pending',
      eventId: 'capped',
      eventStart: new Date(w.clock.now().getTime() + 30 * 60_000),
      dueAt: w.clock.now(),
      event: snapshot,
    });
    const late = newId();
    await db.insert(subscriptionFires).values({
      ...base,
      id: late,
      status: 'pending',
      eventId: 'late',
      eventStart: new Date(w.clock.now().getTime() + 60_000),
      dueAt: w.clock.now(),
      event: snapshot,
    });
    await w.clock.advance(2 * 60_000); // the late one's meeting has begun by the time it is claimed
    await tick();
    const settled = await db
      .select()
      .from(subscriptionFires)
      .where(sql`${subscriptionFires.id} in (${capped}, ${late})`);
    expect(Object.fromEntries(settled.map((f) => [f.eventId, [f.status, f.reason]]))).toEqual({
      capped: ['skipped', 'rate_limited'],
      late: ['skipped', 'meeting_started'],
    });
    await api('DELETE', `/subscriptions/${sub.id}`);
    expect((await fires(sub.id)).length).toBe(0);
  });

  it('test-fires a preview that returns the chat handles and writes no ledger row', async () => {
    const sub = (await create({ ...valid(), enabled: false })).body.data;
    const res = await api('POST', `/subscriptions/${sub.id}/test-fire`);
    expect(res.status, res.text).toBe(202);
    expect(res.body.data).toMatchObject({ chat_id: expect.any(String), run_id: expect.any(String), status: 'queued' });
    expect(await fires(sub.id)).toHaveLength(0);
    await w.drain();
    const [run] = await w.h.database.db.select().from(runs).where(eq(runs.id, res.body.data.run_id));
    expect((run!.input as { message: string }).message).toContain('TEST FIRE');
    const [chat] = await w.h.database.db.select().from(chats).where(eq(chats.id, res.body.data.chat_id));
    expect(chat!.subscriptionId).toBe(sub.id);
  });

  it('offers the actions on the agents MCP tool and the subscription:// resources', async () => {
    const transport = new StreamableHTTPClientTransport(
      new URL(`${w.h.services.config.publicUrl}/api/platform/v1/mcp`),
      {
        fetch: (url, init) => w.h.fetch(new Request(url, init)),
        requestInit: { headers: { 'x-api-key': w.ws.admin.key } },
      },
    );
    const client = new Client({ name: 'subscriptions-test', version: '1.0.0' });
    await client.connect(transport);
    const tool = (await client.listTools()).tools.find((t) => t.name === 'agents');
    for (const action of [
      'list_subscription_kinds',
      'create_subscription',
      'list_subscriptions',
      'get_subscription',
      'list_subscription_fires',
      'update_subscription',
      'delete_subscription',
      'test_fire_subscription',
    ])
      expect(tool?.description, action).toContain(`- ${action}:`);
    const created = (await client.callTool({
      name: 'agents',
      arguments: { action: 'create_subscription', ...valid(), name: 'Over MCP' },
    })) as { isError?: boolean; structuredContent?: Record<string, any> };
    expect(created.isError, JSON.stringify(created.structuredContent)).toBeFalsy();
    const id = created.structuredContent!.id as string;
    const read = async (uri: string) =>
      JSON.parse(String(((await client.readResource({ uri })).contents[0] as { text?: string }).text));
    expect(JSON.stringify(await read('subscription://kinds'))).toContain('calendar.event_upcoming');
    expect(JSON.stringify(await read('subscription://list'))).toContain(id);
    expect(JSON.stringify(await read(`subscription://${id}`))).toContain('Over MCP');
    expect(JSON.stringify(await read(`subscription://${id}/fires`))).toContain('"fires"');
    await client.close();
  });
});
