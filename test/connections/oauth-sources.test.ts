import { and, eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accounts, connections, deals, interactions, participants } from '../../schema/index.js';
import { FakeGoogle, FakeSalesforce } from '../support/fake-providers.js';
import { connectionsWorld, expectEnvelope, START, type ConnectionsWorld } from './support.js';

const CALLBACK = '/api/platform/v1/connections/oauth/callback';
const daysBefore = (days: number) => new Date(Date.parse(START) - days * 86_400_000).toISOString();
const at = (days: number, hour: number) =>
  new Date(Date.parse(START) - days * 86_400_000 + hour * 3600_000).toISOString();

/** Salesforce and Google Calendar: the OAuth connect flow with PKCE, the callback, tokens refreshed, and their syncs. */
describe('OAuth sources', () => {
  let w: ConnectionsWorld;
  const salesforce = new FakeSalesforce();
  const google = new FakeGoogle();
  beforeAll(async () => {
    await salesforce.start();
    await google.start();
    w = await connectionsWorld({
      SALESFORCE_CLIENT_ID: salesforce.auth.clientId,
      SALESFORCE_CLIENT_SECRET: salesforce.auth.clientSecret,
      SALESFORCE_LOGIN_URL: salesforce.url,
      GOOGLE_CLIENT_ID: google.auth.clientId,
      GOOGLE_CLIENT_SECRET: google.auth.clientSecret,
      GOOGLE_ACCOUNTS_URL: google.url,
      GOOGLE_TOKEN_URL: `${google.url}/token`,
      GOOGLE_CALENDAR_API_BASE_URL: google.url,
    });
    const sf = (id: string, fields: Record<string, unknown>, days: number) => ({
      Id: id,
      CreatedDate: daysBefore(days + 30),
      SystemModstamp: daysBefore(days),
      ...fields,
    });
    salesforce.objects.Account.push(
      sf(
        '001A',
        {
          Name: 'Umbrella Corp',
          Website: 'https://www.umbrella.test/about',
          Industry: 'Biotech',
          NumberOfEmployees: 5000,
          Type: 'Customer - Direct',
        },
        10,
      ),
      sf(
        '001B',
        {
          Name: 'Stark Industries',
          Website: 'stark.test',
          Industry: 'Manufacturing',
          NumberOfEmployees: 900,
          Type: 'Prospect',
        },
        9,
      ),
    );
    salesforce.objects.Contact.push(
      sf(
        '003A',
        { FirstName: 'Alice', LastName: 'Wong', Email: 'alice@umbrella.test', Title: 'CTO', AccountId: '001A' },
        8,
      ),
    );
    salesforce.objects.Opportunity.push(
      sf(
        '006A',
        {
          Name: 'Umbrella renewal',
          StageName: 'Negotiation/Review',
          Amount: 250000,
          CloseDate: '2026-07-31',
          Probability: 90,
          IsClosed: false,
          IsWon: false,
          AccountId: '001A',
        },
        5,
      ),
      sf(
        '006B',
        {
          Name: 'Stark pilot',
          StageName: 'Closed Won',
          Amount: 30000,
          CloseDate: '2026-05-15',
          Probability: 100,
          IsClosed: true,
          IsWon: true,
          AccountId: '001B',
        },
        4,
      ),
      sf(
        '006C',
        {
          Name: 'Custom stage deal',
          StageName: 'Legal Review (custom)',
          Amount: 1000,
          CloseDate: '2026-08-01',
          Probability: 1,
          IsClosed: false,
          IsWon: false,
          AccountId: '001B',
        },
        3,
      ),
    );
  }, 60_000);
  afterAll(async () => {
    await w?.close();
    await salesforce.stop();
    await google.stop();
  });

  const callback = (query: Record<string, string>) => w.h.fetch(`${CALLBACK}?${new URLSearchParams(query)}`);

  describe('Salesforce', () => {
    let id: string;
    let authorizeUrl: string;

    it('answers oauth_redirect with an authorize URL carrying the client, the callback, a state and a PKCE challenge', async () => {
      const res = await w.api('POST', '/connections', { body: { connector_type: 'salesforce' } });
      expect(res.status, res.text).toBe(200);
      expect(res.body.data).toMatchObject({
        mode: 'oauth_redirect',
        sync_run_id: null,
        connection: { status: 'pending', health: 'syncing' },
      });
      id = res.body.data.connection.id;
      authorizeUrl = res.body.data.authorize_url;
      const url = new URL(authorizeUrl);
      expect(`${url.origin}${url.pathname}`).toBe(`${salesforce.url}/services/oauth2/authorize`);
      expect(Object.fromEntries(url.searchParams)).toMatchObject({
        response_type: 'code',
        client_id: salesforce.auth.clientId,
        redirect_uri: `http://platform.test${CALLBACK}`,
        code_challenge_method: 'S256',
      });
      expect(url.searchParams.get('state')).toMatch(new RegExp(`^${id}\\.`));
      expect(url.searchParams.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
      // A second connect while consent is pending restarts it on the same row.
      const again = await w.api('POST', '/connections', { body: { connector_type: 'salesforce' } });
      expect(again.body.data).toMatchObject({ mode: 'oauth_redirect', connection: { id } });
      expect(again.body.data.authorize_url).not.toBe(authorizeUrl);
      // The first link's state was replaced.
      const stale = salesforce.auth.consent(authorizeUrl);
      expectEnvelope(await toTest(await callback({ code: stale.code, state: stale.state })), 400, 'invalid_argument');
      authorizeUrl = again.body.data.authorize_url;
    });

    it('refuses a callback whose state is unknown, forged or spent, with the envelope', async () => {
      expectEnvelope(await toTest(await callback({ code: 'x', state: 'garbage' })), 400, 'invalid_argument');
      const { state } = salesforce.auth.consent(authorizeUrl);
      expectEnvelope(
        await toTest(await callback({ code: 'x', state: `${id}.forged-forged-forged` })),
        400,
        'invalid_argument',
      );
      expect(state.startsWith(`${id}.`)).toBe(true);
    });

    it('completes on consent: the code is exchanged with the verifier, tokens sealed, the first sync run, the browser sent to the console', async () => {
      const { code, state } = salesforce.auth.consent(authorizeUrl);
      const res = await callback({ code, state });
      expect(res.status).toBe(302);
      const location = new URL(res.headers.get('location') ?? '', 'http://platform.test');
      expect(location.pathname).toBe('/console');
      expect(Object.fromEntries(location.searchParams)).toEqual({ connection_id: id, connection_result: 'connected' });
      // Spent: the same redirect again changes nothing.
      expectEnvelope(await toTest(await callback({ code, state })), 400, 'invalid_argument');
      await w.settle();
      const view = (await w.api('GET', `/connections/${id}`)).body.data;
      expect(view).toMatchObject({
        status: 'connected',
        health: 'healthy',
        last_run: { status: 'complete', streams_total: 3, records_written: 6, trigger: 'connect' },
      });
      const text = JSON.stringify(view);
      expect(text).not.toContain(salesforce.auth.accessToken);
      expect(text).not.toContain(salesforce.auth.refreshToken);
      const stored = (await w.h.database.db.select().from(connections).where(eq(connections.id, id)))[0]!;
      expect(stored.credentialsSealed).not.toContain(salesforce.auth.refreshToken);

      const rows = await w.h.database.db
        .select()
        .from(deals)
        .where(and(eq(deals.workspaceId, w.ws.id), eq(deals.source, 'salesforce')));
      const byId = new Map(rows.map((d) => [d.externalId, d]));
      expect(byId.get('006A')).toMatchObject({
        stage: 'negotiation',
        amount: 250000,
        probability: 90,
        closeDate: '2026-07-31',
        isClosed: false,
      });
      expect(byId.get('006B')).toMatchObject({ stage: 'closed_won', isWon: true });
      // An unknown custom stage reads as open; a 1% probability stays 1%.
      expect(byId.get('006C')).toMatchObject({ stage: 'evaluation', probability: 1 });
      const accts = await w.h.database.db
        .select()
        .from(accounts)
        .where(and(eq(accounts.workspaceId, w.ws.id), eq(accounts.source, 'salesforce')));
      expect(accts.map((a) => [a.name, a.domain, a.type]).sort()).toEqual([
        ['Stark Industries', 'stark.test', 'sales_target'],
        ['Umbrella Corp', 'umbrella.test', 'customer'],
      ]);
      expect(byId.get('006A')?.accountId).toBe(accts.find((a) => a.externalId === '001A')?.id);
      // The recency window went down as a SOQL filter on SystemModstamp.
      expect(salesforce.soql[0]).toMatch(
        /^SELECT Id, Name, .* FROM Account WHERE SystemModstamp >= \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ ORDER BY SystemModstamp ASC, Id ASC$/,
      );
    });

    it('follows nextRecordsUrl batches, and refreshes an expired access token without bothering anyone', async () => {
      salesforce.batchSize = 1;
      salesforce.auth.expireAccessToken();
      await w.h.database.db
        .update(connections)
        .set({ cursors: {}, nextSyncAt: w.clock.now() })
        .where(eq(connections.id, id));
      salesforce.requests.length = 0;
      await w.tick();
      await w.settle();
      expect((await w.api('GET', `/connections/${id}`)).body.data).toMatchObject({
        health: 'healthy',
        last_run: { status: 'complete', records_written: 6 },
      });
      expect(salesforce.count((r) => r.path === '/services/oauth2/token')).toBe(1);
      expect(salesforce.count((r) => r.path.startsWith('/services/data/v60.0/query/'))).toBe(3); // 2 accounts, 1 contact, 3 opportunities: 1 + 0 + 2 further batches
      salesforce.batchSize = 200;
    });

    it('shows rate_limited for the org\u2019s API allowance, and needs_reauth once the refresh token is revoked; a reconnect consents again in place', async () => {
      salesforce.failNext('query', {
        status: 403,
        body: [{ message: 'TotalRequests Limit exceeded.', errorCode: 'REQUEST_LIMIT_EXCEEDED' }],
      });
      await w.h.database.db.update(connections).set({ nextSyncAt: w.clock.now() }).where(eq(connections.id, id));
      await w.tick();
      await w.drain();
      expect((await w.api('GET', `/connections/${id}/status`)).body.data.health).toBe('rate_limited');
      await w.settle();

      salesforce.auth.refreshToken = 'revoked-and-replaced';
      salesforce.auth.expireAccessToken();
      await w.h.database.db.update(connections).set({ nextSyncAt: w.clock.now() }).where(eq(connections.id, id));
      await w.tick();
      await w.settle();
      expect((await w.api('GET', `/connections/${id}`)).body.data).toMatchObject({
        health: 'needs_reauth',
        last_run: { error_reason: 'auth' },
      });

      const res = await w.api('POST', `/connections/${id}/reconnect`, { body: {} });
      expect(res.body.data).toMatchObject({ mode: 'oauth_redirect', connection: { id } });
      const { code, state } = salesforce.auth.consent(res.body.data.authorize_url);
      expect((await callback({ code, state })).status).toBe(302);
      await w.settle();
      expect((await w.api('GET', `/connections/${id}`)).body.data).toMatchObject({
        status: 'connected',
        health: 'healthy',
        last_run: { trigger: 'reconnect' },
      });
      expect(
        (await w.api('GET', '/connections')).body.data.connections.filter(
          (c: any) => c.connector.type === 'salesforce',
        ),
      ).toHaveLength(1);
    });

    it('sends a refused consent back to the console as denied, storing nothing', async () => {
      const res = await w.api('POST', '/connections', { body: { connector_type: 'google_calendar' } });
      const state = new URL(res.body.data.authorize_url).searchParams.get('state')!;
      const back = await callback({ error: 'access_denied', state });
      expect(new URL(back.headers.get('location') ?? '', 'http://x').searchParams.get('connection_result')).toBe(
        'denied',
      );
      const row = (
        await w.h.database.db.select().from(connections).where(eq(connections.id, res.body.data.connection.id))
      )[0]!;
      expect(row).toMatchObject({ status: 'pending', credentialsSealed: null });
    });
  });

  describe('Google Calendar', () => {
    let id: string;
    const me = { email: 'admin@seller.test', self: true, organizer: true };
    const meeting = (
      eventId: string,
      summary: string,
      days: number,
      attendees: { email?: string; displayName?: string; self?: boolean; resource?: boolean }[],
      extra: Record<string, unknown> = {},
    ) =>
      google.put({
        id: eventId,
        iCalUID: `${eventId}@google.com`,
        status: 'confirmed',
        summary,
        start: { dateTime: at(days, 15) },
        end: { dateTime: at(days, 16) },
        attendees,
        organizer: { email: me.email, self: true },
        ...extra,
      });

    beforeAll(() => {
      meeting(
        'e1',
        'Umbrella security review',
        6,
        [
          me,
          { email: 'alice@umbrella.test', displayName: 'Alice Wong' },
          { email: 'room-4@resource.calendar.google.com', resource: true },
        ],
        { description: 'Agenda: SOC 2 and data residency.' },
      );
      meeting('e2', 'Weekly team sync', 5, [me, { email: 'max@seller.test' }]);
      google.put({
        id: 'e3',
        iCalUID: 'e3@google.com',
        status: 'confirmed',
        summary: 'Offsite',
        start: { date: daysBefore(4).slice(0, 10) },
        end: { date: daysBefore(3).slice(0, 10) },
        attendees: [me, { email: 'x@umbrella.test' }],
      });
      meeting('e4', 'Stark intro', 3, [me, { email: 'tony@stark.test' }]);
      meeting('e5', 'Investor catch-up', 2, [me, { email: 'vc@fund.test' }]);
    });

    it('connects a member\u2019s own calendar (personal: owned by the caller) through consent', async () => {
      const res = await w.api('POST', '/connections', {
        body: { connector_type: 'google_calendar', display_name: 'Admin calendar' },
      });
      expect(res.body.data.mode).toBe('oauth_redirect');
      id = res.body.data.connection.id;
      const url = new URL(res.body.data.authorize_url);
      expect(url.pathname).toBe('/o/oauth2/v2/auth');
      expect(Object.fromEntries(url.searchParams)).toMatchObject({
        access_type: 'offline',
        prompt: 'consent',
        scope: 'https://www.googleapis.com/auth/calendar.readonly',
      });
      const { code, state } = google.auth.consent(res.body.data.authorize_url);
      expect((await callback({ code, state })).status).toBe(302);
      await w.settle();
      const view = (await w.api('GET', `/connections/${id}`)).body.data;
      expect(view).toMatchObject({
        status: 'connected',
        health: 'healthy',
        ownership: 'personal',
        owner_user_id: w.ws.admin.userId,
        connector: { category: 'comms' },
      });
    });

    it('keeps timed meetings with someone from outside, without rooms; drops internal-only and all-day events', async () => {
      const rows = await w.h.database.db
        .select()
        .from(interactions)
        .where(and(eq(interactions.workspaceId, w.ws.id), eq(interactions.source, 'google_calendar')));
      expect(rows.map((r) => r.title).sort()).toEqual(['Investor catch-up', 'Stark intro', 'Umbrella security review']);
      const umbrella = rows.find((r) => r.title === 'Umbrella security review')!;
      expect(umbrella).toMatchObject({
        kind: 'meeting',
        durationSeconds: 3600,
        summary: 'Agenda: SOC 2 and data residency.',
        participantCount: 2,
        externalParticipantCount: 1,
      });
      // Linked by the attendee's domain to the account Salesforce synced.
      const [acct] = await w.h.database.db
        .select()
        .from(accounts)
        .where(and(eq(accounts.workspaceId, w.ws.id), eq(accounts.domain, 'umbrella.test')));
      expect(umbrella.accountId).toBe(acct?.id);
      const people = await w.h.database.db
        .select()
        .from(participants)
        .where(eq(participants.interactionId, umbrella.id));
      expect(people.map((p) => [p.email, p.side]).sort()).toEqual([
        ['admin@seller.test', 'internal'],
        ['alice@umbrella.test', 'external'],
      ]);
      // The calendar's summary counts live what it holds.
      const roster = await w.h.database.db
        .select()
        .from(participants)
        .where(
          inArray(
            participants.interactionId,
            rows.map((r) => r.id),
          ),
        );
      const summary = (await w.api('GET', `/connections/${id}/summary`)).body.data;
      expect(summary).toMatchObject({
        category: 'comms',
        synced: true,
        crm: null,
        calls: null,
        social: null,
        comms: {
          meetings: 3,
          participants: roster.length,
          external_participants: roster.filter((p) => p.side === 'external').length,
          accounts: new Set(rows.map((r) => r.accountId).filter((a) => a !== null)).size,
          latest_meeting_at: new Date(Math.max(...rows.map((r) => r.occurredAt.getTime()))).toISOString(),
        },
      });
    });

    it('applies a saved comms filter to what syncs next; reads changes incrementally; a canceled meeting is removed; an expired sync token reads again in full', async () => {
      expectEnvelope(
        await w.api('PUT', `/connections/${id}/comms-filter`, { body: { exclude_domains: ['not a domain'] } }),
        400,
        'invalid_argument',
      );
      const saved = await w.api('PUT', `/connections/${id}/comms-filter`, {
        body: { external_only: true, exclude_domains: ['fund.test'] },
      });
      expect(saved.body.data.config.comms_filter).toEqual({
        external_only: true,
        exclude_participants: [],
        exclude_domains: ['fund.test'],
      });
      meeting('e6', 'Fund partner meeting', 1, [me, { email: 'gp@eu.fund.test' }]);
      meeting('e4', 'Stark intro (moved)', 1, [me, { email: 'tony@stark.test' }]);
      google.put({ id: 'e1', iCalUID: 'e1@google.com', status: 'cancelled' });
      google.requests.length = 0;
      await w.h.database.db.update(connections).set({ nextSyncAt: w.clock.now() }).where(eq(connections.id, id));
      await w.tick();
      await w.settle();
      const listed = google.requests.filter((r) => r.path.endsWith('/events'));
      expect(listed).toHaveLength(1);
      const titles = async () =>
        (
          await w.h.database.db
            .select({ title: interactions.title })
            .from(interactions)
            .where(and(eq(interactions.workspaceId, w.ws.id), eq(interactions.source, 'google_calendar')))
        )
          .map((r) => r.title)
          .sort();
      expect(await titles()).toEqual(['Investor catch-up', 'Stark intro (moved)']);

      google.expireSyncTokensBefore = Number.MAX_SAFE_INTEGER;
      await w.h.database.db.update(connections).set({ nextSyncAt: w.clock.now() }).where(eq(connections.id, id));
      await w.tick();
      await w.settle();
      expect((await w.api('GET', `/connections/${id}`)).body.data.last_run).toMatchObject({ status: 'complete' });
      expect(await titles()).toEqual(['Investor catch-up', 'Stark intro (moved)']);
    });

    it('hands a personal connection to another member, never to a stranger', async () => {
      const stranger = await w.h.seedWorkspace('Strangers');
      expectEnvelope(
        await w.api('PATCH', `/connections/${id}`, { body: { owner_user_id: stranger.admin.userId } }),
        400,
        'invalid_argument',
      );
      const res = await w.api('PATCH', `/connections/${id}`, { body: { owner_user_id: w.ws.editor.userId } });
      expect(res.body.data.owner_user_id).toBe(w.ws.editor.userId);
    });
  });
});

async function toTest(res: Response): Promise<{ status: number; headers: Headers; body: any; text: string }> {
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, body: text ? JSON.parse(text) : null };
}
