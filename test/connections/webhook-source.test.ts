import { and, eq, like } from 'drizzle-orm';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { interactions } from '../../schema/index.js';
import { connectionsWorld, expectEnvelope, START, type ConnectionsWorld } from './support.js';

const at = (hours: number) => new Date(Date.parse(START) - hours * 3600_000).toISOString();

/** The webhook source: calls and emails pushed to a signed ingest URL, verified the Standard Webhooks way. */
describe('webhook source: signed pushes of calls and emails', () => {
  let w: ConnectionsWorld;
  let id: string;
  let url: string;
  let secret: string;
  let pushes = 0;
  beforeAll(async () => {
    w = await connectionsWorld();
  }, 60_000);
  afterAll(async () => w?.close());

  /** Sign with the official Standard Webhooks library, at the service's clock. */
  const push = async (
    body: unknown,
    options: { secret?: string; url?: string; headers?: Record<string, string>; timestamp?: Date } = {},
  ) => {
    const payload = JSON.stringify(body);
    const msgId = `msg_${++pushes}`;
    const signature = new Webhook(options.secret ?? secret).sign(msgId, options.timestamp ?? w.clock.now(), payload);
    const res = await w.h.fetch(options.url ?? url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'webhook-id': msgId,
        'webhook-timestamp': String(Math.floor((options.timestamp ?? w.clock.now()).getTime() / 1000)),
        'webhook-signature': signature,
        ...options.headers,
      },
      body: payload,
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, text, body: text ? JSON.parse(text) : null };
  };
  const rows = () =>
    w.h.database.db
      .select()
      .from(interactions)
      .where(and(eq(interactions.workspaceId, w.ws.id), like(interactions.source, 'webhook:%')));

  const customerCall = {
    type: 'call',
    id: 'call-1',
    title: 'Northwind renewal call',
    started_at: at(30),
    duration_seconds: 1500,
    participants: [
      { email: 'ae@seller.test', name: 'Ann AE', side: 'internal' },
      { email: 'cfo@northwind.test', name: 'Carl CFO', side: 'external' },
    ],
    transcript: [
      {
        speaker_email: 'ae@seller.test',
        speaker_name: 'Ann AE',
        side: 'internal',
        start_seconds: 0,
        text: 'Thanks for making time. Shall we go over the renewal?',
      },
      {
        speaker_email: 'cfo@northwind.test',
        speaker_name: 'Carl CFO',
        side: 'external',
        start_seconds: 6,
        end_seconds: 20,
        text: 'Our board froze every new software purchase until March. Renewals are fine though.',
      },
    ],
  };
  const customerEmail = {
    type: 'email',
    id: 'mail-1',
    subject: 'Northwind security questionnaire',
    sent_at: at(20),
    direction: 'inbound',
    thread_id: 'thread-9',
    body: 'Please find our completed security questionnaire attached.',
    participants: [
      { email: 'cfo@northwind.test', side: 'external' },
      { email: 'ae@seller.test', side: 'internal' },
    ],
  };

  it('connects with the ingest URL and a signing secret shown once, and no sync to schedule', async () => {
    const res = await w.api('POST', '/connections', {
      body: {
        connector_type: 'call_webhook',
        display_name: 'Dialer',
        call_filters: { enabled: true, exclude_domains: ['competitor.test'] },
      },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data).toMatchObject({
      mode: 'connected',
      sync_run_id: null,
      connection: { status: 'connected', health: 'healthy', next_sync_at: null },
    });
    id = res.body.data.connection.id;
    ({ url, secret } = res.body.data.ingest);
    expect(url).toBe(`http://platform.test/api/platform/v1/connections/${id}/ingest`);
    expect(secret).toMatch(/^whsec_/);
    const read = await w.api('GET', `/connections/${id}`);
    expect(read.text).not.toContain(secret);
    expect(read.text).not.toContain(secret.slice(6));
  });

  it('refuses unsigned, mis-signed, stale and misaddressed pushes, and bad items, writing nothing', async () => {
    const body = { items: [customerCall] };
    expectEnvelope(await push(body, { headers: { 'webhook-signature': '' } }), 401, 'unauthenticated');
    expectEnvelope(
      await push(body, { secret: `whsec_${Buffer.from('not-the-secret-not-the-secret!!').toString('base64')}` }),
      401,
      'invalid_token',
    );
    expect(
      expectEnvelope(
        await push(body, { timestamp: new Date(w.clock.now().getTime() - 3600_000) }),
        401,
        'invalid_token',
      ).details.reason,
    ).toBe('timestamp');
    expectEnvelope(
      await push(body, { url: url.replace(id, '00000000-0000-4000-8000-000000000000') }),
      404,
      'not_found',
    );
    const bad = expectEnvelope(
      await push({ items: [customerEmail, { ...customerCall, started_at: 'yesterday' }] }),
      400,
      'invalid_argument',
    );
    expect(JSON.stringify(bad.details)).toContain('items.1.started_at');
    // Text Postgres cannot store is refused after the signature, before any write, naming the field.
    for (const [text, code] of [
      ['Renewal\u0000call', 'nul_character'],
      ['Renewal \udfff call', 'unpaired_surrogate'],
    ] as const) {
      const unstorable = expectEnvelope(
        await push({ items: [customerEmail, { ...customerCall, title: text }] }),
        400,
        'invalid_argument',
      );
      expect(unstorable.details).toEqual({ fields: [expect.objectContaining({ field: 'items.1.title', code })] });
    }
    expect(await rows()).toEqual([]);
  });

  it('ingests calls with their transcripts and emails, through the filters, idempotently, and search finds them', async () => {
    const competitor = {
      ...customerCall,
      id: 'call-2',
      title: 'Call with a competitor',
      participants: [
        { email: 'ae@seller.test', side: 'internal' },
        { email: 'spy@eu.competitor.test', side: 'external' },
      ],
    };
    const internalMail = {
      ...customerEmail,
      id: 'mail-2',
      subject: 'Internal forecast',
      participants: [
        { email: 'ae@seller.test', side: 'internal' },
        { email: 'vp@seller.test', side: 'internal' },
      ],
    };
    const res = await push({ items: [customerCall, customerEmail, competitor, internalMail] });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data).toEqual({
      accepted: 4,
      written: 2,
      dropped: { excluded_domain: 1, no_external_participant: 1 },
    });
    const again = await push({ items: [customerCall, customerEmail] });
    expect(again.body.data.written).toBe(2);
    const stored = await rows();
    expect(stored.map((r) => [r.kind, r.title]).sort()).toEqual([
      ['call', 'Northwind renewal call'],
      ['email', 'Northwind security questionnaire'],
    ]);
    expect(stored.find((r) => r.kind === 'email')).toMatchObject({
      direction: 'inbound',
      threadId: 'thread-9',
      body: 'Please find our completed security questionnaire attached.',
      durationSeconds: null,
    });

    const semantic = await w.api('POST', '/search/query', {
      body: { query: 'Our board froze every new software purchase until March.', mode: 'semantic', limit: 3 },
    });
    expect(JSON.stringify(semantic.body.data.results[0])).toContain('board froze');
    const fuzzy = await w.api('POST', '/search/query', { body: { query: 'security questionnaire', mode: 'fuzzy' } });
    expect(JSON.stringify(fuzzy.body.data.results)).toContain('Northwind security questionnaire');

    const summary = (await w.api('GET', `/connections/${id}/summary`)).body.data;
    expect(summary).toMatchObject({
      synced: true,
      calls: { calls: 1, emails: 1, transcribed_calls: 1, participants: 4, embedded_utterances: 2 },
    });
    expect((await w.api('GET', `/connections/${id}/runs`)).body.data.total).toBe(0);
  });

  it('applies a saved comms filter to emails pushed next', async () => {
    const saved = await w.api('PUT', `/connections/${id}/comms-filter`, {
      body: { exclude_participants: ['cfo@northwind.test'] },
    });
    expect(saved.status, saved.text).toBe(200);
    const res = await push({ items: [{ ...customerEmail, id: 'mail-3', subject: 'Re: questionnaire' }] });
    expect(res.body.data).toEqual({ accepted: 1, written: 0, dropped: { excluded_participant: 1 } });
  });

  it('keeps a webhook calls source paused until a call filter decision, and refuses pushes meanwhile', async () => {
    const res = await w.api('POST', '/connections', {
      body: { connector_type: 'call_webhook', display_name: 'Second dialer' },
    });
    expect(res.body.data.connection.paused_reason).toBe('call_filters_required');
    const other = res.body.data.ingest as { url: string; secret: string };
    expectEnvelope(await push({ items: [customerCall] }, other), 409, 'conflict');
    await w.api('PUT', `/connections/${res.body.data.connection.id}/call-filters`, { body: { enabled: false } });
    const accepted = await push({ items: [{ ...customerCall, id: 'call-from-second' }] }, other);
    expect(accepted.body.data.written).toBe(1);
  });

  it('stops accepting on disconnect; a reconnect issues a new secret and the old one no longer verifies', async () => {
    expect((await w.api('DELETE', `/connections/${id}`)).body.data.status).toBe('disconnected');
    expectEnvelope(await push({ items: [customerCall] }), 404, 'not_found');
    const back = await w.api('POST', `/connections/${id}/reconnect`, { body: {} });
    expect(back.body.data).toMatchObject({ mode: 'connected', connection: { id, status: 'connected' } });
    const fresh = back.body.data.ingest.secret as string;
    expect(fresh).not.toBe(secret);
    expectEnvelope(await push({ items: [customerCall] }), 401, 'invalid_token');
    expect((await push({ items: [customerCall] }, { secret: fresh })).status).toBe(200);
  });

  it('caps a workspace at 50 live connections (409 conflict), disconnected ones not counted', async () => {
    const live = (await w.api('GET', '/connections', { query: { limit: 200 } })).body.data.connections.filter(
      (c: any) => c.status !== 'disconnected',
    ).length;
    for (let i = live; i < 50; i++)
      expect(
        (
          await w.api('POST', '/connections', {
            body: { connector_type: 'call_webhook', display_name: `Dialer ${i}`, call_filters: { enabled: false } },
          })
        ).status,
      ).toBe(200);
    const refused = expectEnvelope(
      await w.api('POST', '/connections', { body: { connector_type: 'call_webhook', display_name: 'One too many' } }),
      409,
      'conflict',
    );
    expect(refused.details).toEqual({ limit: 50 });
    const list = (await w.api('GET', '/connections', { query: { limit: 200 } })).body.data.connections as {
      id: string;
      display_name: string;
    }[];
    await w.api('DELETE', `/connections/${list.find((c) => c.display_name === 'Dialer 49')!.id}`);
    expect(
      (await w.api('POST', '/connections', { body: { connector_type: 'call_webhook', display_name: 'One too many' } }))
        .status,
    ).toBe(200);
  });
});
