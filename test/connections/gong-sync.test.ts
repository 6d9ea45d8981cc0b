import { and, eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { judgeCall, domainMatches } from '../../functions/connections/filters.js';
import { connections, interactions, participants, transcriptTurns, utterances } from '../../schema/index.js';
import { connectionsWorld, expectEnvelope, seedGong, type ConnectionsWorld } from './support.js';

describe('call filters, as rules', () => {
  const filters = {
    enabled: true,
    external_only: true,
    reps: [],
    exclude_participants: [],
    exclude_domains: ['acme.com'],
  };
  it('matches domains suffix-aware: acme.com covers eu.acme.com, not notacme.com', () => {
    expect(domainMatches('acme.com', 'acme.com')).toBe(true);
    expect(domainMatches('eu.acme.com', 'acme.com')).toBe(true);
    expect(domainMatches('notacme.com', 'acme.com')).toBe(false);
    expect(domainMatches('acme.com.evil.test', 'acme.com')).toBe(false);
  });
  it('evaluates exclusions before includes, and drops an unresolvable roster whatever the filters', () => {
    const rep = { email: 'rae@seller.test', side: 'internal' as const };
    expect(judgeCall([rep, { email: 'x@eu.acme.com', side: 'external' }], filters)).toEqual({
      keep: false,
      reason: 'excluded_domain',
    });
    expect(judgeCall([rep, { email: 'x@notacme.com', side: 'external' }], filters)).toEqual({ keep: true });
    expect(judgeCall([rep], filters)).toEqual({ keep: false, reason: 'no_external_participant' });
    expect(judgeCall([{ email: null, side: 'external' }], { ...filters, enabled: false })).toEqual({
      keep: false,
      reason: 'roster_unresolved',
    });
    expect(judgeCall([], { ...filters, enabled: false })).toEqual({ keep: false, reason: 'roster_unresolved' });
    const withReps = { ...filters, exclude_domains: [], reps: ['sam@seller.test'] };
    expect(judgeCall([rep, { email: 'b@buyer.test', side: 'external' }], withReps)).toEqual({
      keep: false,
      reason: 'no_listed_rep',
    });
    expect(
      judgeCall(
        [
          { email: 'SAM@seller.test', side: 'internal' },
          { email: 'b@buyer.test', side: 'external' },
        ],
        withReps,
      ),
    ).toEqual({ keep: true });
    expect(
      judgeCall([rep, { email: 'boss@buyer.test', side: 'external' }], {
        ...filters,
        exclude_domains: [],
        exclude_participants: ['boss@buyer.test'],
      }),
    ).toEqual({ keep: false, reason: 'excluded_participant' });
  });
});

/** Connecting Gong: paused until a call filter decision, then calls, participants and transcripts synced through the filters. */
describe('Gong: connect, decide filters, sync calls', () => {
  let w: ConnectionsWorld;
  let connectionId: string;
  beforeAll(async () => {
    w = await connectionsWorld();
    seedGong(w.gong);
    w.gong.pageSize = 2;
  }, 60_000);
  afterAll(async () => w?.close());

  const calls = () =>
    w.h.database.db
      .select()
      .from(interactions)
      .where(and(eq(interactions.workspaceId, w.ws.id), eq(interactions.source, 'gong')));

  it('checks the key pair with Gong (Basic auth), refuses only one half of it, and stays paused without a filter decision', async () => {
    expect(
      expectEnvelope(
        await w.api('POST', '/connections', { body: { connector_type: 'gong', api_key: w.gong.secret } }),
        400,
        'invalid_argument',
      ).details.field,
    ).toBe('api_id');
    expectEnvelope(
      await w.api('POST', '/connections', {
        body: { connector_type: 'gong', api_id: w.gong.accessKey, api_key: 'wrong' },
      }),
      400,
      'invalid_argument',
    );
    const res = await w.api('POST', '/connections', {
      body: { connector_type: 'gong', api_id: w.gong.accessKey, api_key: w.gong.secret },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data).toMatchObject({
      mode: 'connected',
      sync_run_id: null,
      connection: { paused_reason: 'call_filters_required', fields: { api_id: w.gong.accessKey }, health: 'stale' },
    });
    expect(res.text).not.toContain(w.gong.secret);
    connectionId = res.body.data.connection.id;
    await w.clock.advance(60 * 60_000);
    await w.tick();
    await w.settle();
    expect((await w.api('GET', `/connections/${connectionId}/runs`)).body.data.total).toBe(0);
    expect(w.gong.count((r) => r.path === '/v2/calls/extensive')).toBe(0);
  });

  it('lets only a workspace admin decide, names bad filter fields, and starts the first sync on the decision', async () => {
    expectEnvelope(
      await w.api('PUT', `/connections/${connectionId}/call-filters`, { as: w.editor, body: { enabled: true } }),
      403,
      'insufficient_role',
    );
    const bad = expectEnvelope(
      await w.api('PUT', `/connections/${connectionId}/call-filters`, {
        body: { enabled: true, exclude_domains: ['https://initech.com/'] },
      }),
      400,
      'invalid_argument',
    );
    expect(JSON.stringify(bad.details)).toContain('exclude_domains');
    const res = await w.api('PUT', `/connections/${connectionId}/call-filters`, {
      body: { enabled: true, external_only: true, exclude_domains: ['initech.com'] },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data).toMatchObject({
      paused_reason: null,
      config: { call_filters: { enabled: true, exclude_domains: ['initech.com'], reps: [] } },
    });
    await w.settle();
    const run = (await w.api('GET', `/connections/${connectionId}/runs`)).body.data.runs[0];
    expect(run).toMatchObject({
      trigger: 'filters',
      status: 'complete',
      streams_total: 1,
      streams_failed: 0,
      records_written: 3,
    });
  });

  it('applies the filters at ingest: internal-only, excluded (sub)domain and unresolvable rosters dropped, the lookalike domain kept', async () => {
    const titles = (await calls()).map((c) => c.title).sort();
    expect(titles).toEqual([
      'Acme Robotics onboarding review',
      'Globex pricing call',
      'Not Initech: a lookalike domain',
    ]);
    // Three pages of two: Gong's cursor went back in the body each time.
    const pages = w.gong.requests.filter((r) => r.path === '/v2/calls/extensive');
    expect(pages.length).toBe(3);
    expect((pages[1]!.body as { cursor?: string }).cursor).toBeTruthy();
    expect(
      pages.every(
        (p) => p.authorization === `Basic ${Buffer.from(`${w.gong.accessKey}:${w.gong.secret}`).toString('base64')}`,
      ),
    ).toBe(true);
  });

  it('writes participants on both sides, turns and sentence utterances, and embeds only the customer side', async () => {
    const acme = (await calls()).find((c) => c.externalId === '9001')!;
    expect(acme).toMatchObject({
      kind: 'call',
      durationSeconds: 1800,
      participantCount: 2,
      externalParticipantCount: 1,
      summary: expect.stringContaining('data residency'),
    });
    const people = await w.h.database.db.select().from(participants).where(eq(participants.interactionId, acme.id));
    expect(people.map((p) => [p.email, p.side]).sort()).toEqual([
      ['dana@acme.com', 'external'],
      ['rae@seller.test', 'internal'],
    ]);
    const turns = await w.h.database.db
      .select()
      .from(transcriptTurns)
      .where(eq(transcriptTurns.interactionId, acme.id))
      .orderBy(transcriptTurns.turnIndex);
    expect(turns.map((t) => [t.speakerName, t.side])).toEqual([
      ['Rae Rep', 'internal'],
      ['Dana Diaz', 'external'],
    ]);
    expect(turns[1]).toMatchObject({ startedAtSeconds: 9, endedAtSeconds: 18 });
    const said = await w.h.database.db
      .select()
      .from(utterances)
      .where(eq(utterances.interactionId, acme.id))
      .orderBy(utterances.utteranceIndex);
    expect(said.map((u) => [u.utteranceIndex, u.side, u.embedder !== null])).toEqual([
      [0, 'internal', false],
      [1, 'internal', false],
      [2, 'external', true],
      [3, 'external', true],
    ]);
    expect(said[3]?.text).toBe('We need all customer data to stay inside the European Union.');
    expect(said[3]?.embedder).toBe(w.h.services.embedder.id);
    // The Unknown-affiliation participant at another domain is on the customer side.
    const lookalike = (await calls()).find((c) => c.externalId === '9005')!;
    expect(
      (await w.h.database.db.select().from(participants).where(eq(participants.interactionId, lookalike.id))).find(
        (p) => p.email === 'ops@notinitech.com',
      )?.side,
    ).toBe('external');
  });

  it('adds a transcript Gong publishes after the call on a later sync, and changes nothing else on a repeated read', async () => {
    w.gong.calls.push({
      id: '9007',
      title: 'Acme follow-up',
      started: w.clock.now().toISOString(),
      duration: 600,
      parties: [
        { id: 'p-rep', emailAddress: 'rae@seller.test', name: 'Rae Rep', affiliation: 'Internal', speakerId: 's-rep' },
        {
          id: 'p-dana',
          emailAddress: 'dana@acme.com',
          name: 'Dana Diaz',
          affiliation: 'External',
          speakerId: 's-dana',
        },
      ],
    });
    await w.h.database.db
      .update(connections)
      .set({ nextSyncAt: w.clock.now() })
      .where(eq(connections.id, connectionId));
    await w.tick();
    await w.settle();
    const followUp = (await calls()).find((c) => c.externalId === '9007')!;
    expect(await w.h.database.db.select().from(utterances).where(eq(utterances.interactionId, followUp.id))).toEqual(
      [],
    );
    const before = await w.h.database.db
      .select({ id: utterances.id })
      .from(utterances)
      .where(
        inArray(
          utterances.interactionId,
          (await calls()).map((c) => c.id),
        ),
      );

    w.gong.calls.find((c) => c.id === '9007')!.transcript = [
      { speakerId: 's-dana', sentences: [{ start: 0, end: 3000, text: 'We signed off on the rollout plan.' }] },
    ];
    await w.clock.advance(16 * 60_000);
    await w.tick();
    await w.settle();
    const now = await w.h.database.db
      .select({ id: utterances.id, text: utterances.text })
      .from(utterances)
      .where(eq(utterances.interactionId, followUp.id));
    expect(now.map((u) => u.text)).toEqual(['We signed off on the rollout plan.']);
    const all = await w.h.database.db
      .select({ id: utterances.id })
      .from(utterances)
      .where(
        inArray(
          utterances.interactionId,
          (await calls()).map((c) => c.id),
        ),
      );
    expect(all.length).toBe(before.length + 1);
    expect((await calls()).length).toBe(4);
    const summary = (await w.api('GET', `/connections/${connectionId}/summary`)).body.data;
    expect(summary).toMatchObject({
      synced: true,
      category: 'calls',
      crm: null,
      calls: { calls: 4, transcribed_calls: 4, participants: 8 },
    });
    expect(summary.calls.embedded_utterances).toBeGreaterThan(0);
  });

  it('waits out a 429 with Retry-After, retries a 5xx, and fails a sync on pages that stay malformed, without Gong\u2019s text', async () => {
    const resync = async () => {
      await w.h.database.db
        .update(connections)
        .set({ nextSyncAt: w.clock.now() })
        .where(eq(connections.id, connectionId));
      await w.tick();
    };
    w.gong.failNext('calls', {
      status: 429,
      headers: { 'retry-after': '45' },
      body: { requestId: 'x', errors: ['API limit reached'] },
    });
    await resync();
    await w.drain();
    const waiting = (await w.api('GET', `/connections/${connectionId}`)).body.data;
    expect(waiting.health).toBe('rate_limited');
    expect(Date.parse(waiting.rate_limited_until) - w.clock.now().getTime()).toBe(45_000);
    await w.settle();
    expect((await w.api('GET', `/connections/${connectionId}`)).body.data).toMatchObject({
      health: 'healthy',
      last_run: { status: 'complete' },
    });

    const transcriptReads = w.gong.count((r) => r.path === '/v2/calls/transcript');
    w.gong.failNext('transcript', { status: 503 }, 2);
    w.gong.calls.find((c) => c.id === '9002')!.started = w.clock.now().toISOString();
    await w.h.database.db
      .delete(interactions)
      .where(and(eq(interactions.workspaceId, w.ws.id), eq(interactions.externalId, '9002')));
    await resync();
    await w.settle();
    expect((await w.api('GET', `/connections/${connectionId}`)).body.data.last_run).toMatchObject({
      status: 'complete',
      streams_failed: 0,
    });
    expect((await calls()).some((c) => c.externalId === '9002')).toBe(true);
    // Two refused reads, then the one that worked: the page was retried, not skipped.
    expect(w.gong.count((r) => r.path === '/v2/calls/transcript') - transcriptReads).toBe(3);

    w.gong.failNext('calls', { status: 200, body: { requestId: 'x', calls: 'Gong internal detail' } }, 5);
    await resync();
    await w.settle();
    const runs = await w.api('GET', `/connections/${connectionId}/runs`);
    expect(runs.body.data.runs[0]).toMatchObject({ status: 'failed', error_reason: 'unknown' });
    expect(runs.text).not.toContain('Gong internal detail');
    expect((await w.api('GET', `/connections/${connectionId}`)).body.data.health).toBe('error');
  });

  it('reads an empty range (Gong answers 404) as nothing new, and a 401 as needs_reauth', async () => {
    w.gong.calls.length = 0;
    await w.h.database.db
      .update(connections)
      .set({ nextSyncAt: w.clock.now() })
      .where(eq(connections.id, connectionId));
    await w.tick();
    await w.settle();
    expect((await w.api('GET', `/connections/${connectionId}`)).body.data).toMatchObject({
      health: 'healthy',
      last_run: { status: 'complete', records_written: 0 },
    });
    w.gong.secret = 'rotated';
    await w.h.database.db
      .update(connections)
      .set({ nextSyncAt: w.clock.now() })
      .where(eq(connections.id, connectionId));
    await w.tick();
    await w.settle();
    expect((await w.api('GET', `/connections/${connectionId}`)).body.data).toMatchObject({
      health: 'needs_reauth',
      last_run: { error_reason: 'auth' },
    });
    // Reconnect needs the secret again, not the access key (its resupplyOnReconnect is false).
    const back = await w.api('POST', `/connections/${connectionId}/reconnect`, { body: { api_key: 'rotated' } });
    expect(back.status, back.text).toBe(200);
  });

  it('saves call filters atomically with a connect, and {enabled: false} opts out of filtering', async () => {
    const world = await connectionsWorld();
    try {
      seedGong(world.gong);
      const res = await world.api('POST', '/connections', {
        body: {
          connector_type: 'gong',
          api_id: world.gong.accessKey,
          api_key: world.gong.secret,
          call_filters: { enabled: false },
        },
      });
      expect(res.body.data).toMatchObject({
        mode: 'connected',
        connection: { paused_reason: null, config: { call_filters: { enabled: false } } },
      });
      expect(res.body.data.sync_run_id).toBeTruthy();
      await world.settle();
      const rows = await world.h.database.db
        .select({ externalId: interactions.externalId })
        .from(interactions)
        .where(eq(interactions.workspaceId, world.ws.id));
      // Everything but the call nobody on whose roster has an address.
      expect(rows.map((r) => r.externalId).sort()).toEqual(['9001', '9002', '9003', '9004', '9005']);
      const refused = await world.api('POST', '/connections', {
        body: { connector_type: 'hubspot', api_key: world.hubspot.token, call_filters: { enabled: false } },
      });
      expect(expectEnvelope(refused, 400, 'invalid_argument').details.field).toBe('call_filters');
    } finally {
      await world.close();
    }
  });
});
