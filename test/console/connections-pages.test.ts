import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accounts, connections } from '../../schema/index.js';
import { browse, type CookieJar, decodeHtml, formFields, signInWithLink } from '../support/console-session.js';
import { FakeSalesforce } from '../support/fake-providers.js';
import { connectionsWorld, seedHubSpot, type ConnectionsWorld } from '../connections/support.js';

/**
 * `/console/connections` as a person uses it: the catalog, connecting by each method through the
 * public connection operations (invoked as the member, origin `console`), OAuth there and back,
 * disconnect (confirmed), reconnect and the filters. Facts are checked in the tables.
 */
let w: ConnectionsWorld;
const salesforce = new FakeSalesforce();
const html = async (res: Response) => decodeHtml(await res.text());

beforeAll(async () => {
  await salesforce.start();
  w = await connectionsWorld({
    SALESFORCE_CLIENT_ID: salesforce.auth.clientId,
    SALESFORCE_CLIENT_SECRET: salesforce.auth.clientSecret,
    SALESFORCE_LOGIN_URL: salesforce.url,
  });
  seedHubSpot(w.hubspot);
}, 60_000);
afterAll(async () => {
  await w?.close();
  await salesforce.stop();
});

const rowOf = async (type: string) =>
  (
    await w.h.database.db
      .select()
      .from(connections)
      .where(and(eq(connections.workspaceId, w.ws.id), eq(connections.connectorType, type)))
  )[0];

describe('the connections page', () => {
  let jar: CookieJar;
  beforeAll(async () => {
    jar = await signInWithLink(w.h, w.ws.admin.email);
  });

  it('shows the catalog: monogram, category, what each syncs, and why one cannot be connected', async () => {
    const res = await browse(w.h, jar, '/console/connections');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    const page = await html(res);
    expect(page).toContain('Nothing is connected yet');
    expect(page).toMatch(/<span class="monogram" aria-hidden="true">HS<\/span>HubSpot/);
    expect(page).toContain('Syncs: companies, contacts, deals');
    // Google has no OAuth client in this deployment: not connectable, and the page says why.
    expect(page).toContain('no Google OAuth client');
    expect(page).not.toContain('value="google_calendar"');
    expect(page).toContain('<input type="password" id="connect-hubspot-api_key" name="api_key"');
  });

  it('a refused key is named on the page, never echoed back, and stores nothing', async () => {
    const fields = formFields(await html(await browse(w.h, jar, '/console/connections')), '/console/connections');
    const res = await browse(w.h, jar, '/console/connections', {
      form: { ...fields, connector_type: 'hubspot', api_key: 'pat-wrong-secret-123' },
    });
    expect(res.status).toBe(400);
    const page = await html(res);
    expect(page).toMatch(/role="alert">HubSpot refused these credentials/);
    expect(page).not.toContain('pat-wrong-secret-123');
    expect(await rowOf('hubspot')).toBeUndefined();
  });

  it('connects an API-key source (POST-redirect-GET), syncs it, and shows health, runs and summary', async () => {
    const fields = formFields(await html(await browse(w.h, jar, '/console/connections')), '/console/connections');
    const res = await browse(w.h, jar, '/console/connections', {
      form: { ...fields, connector_type: 'hubspot', api_key: w.hubspot.token },
    });
    expect(res.status).toBe(303);
    const row = await rowOf('hubspot');
    expect(row?.status).toBe('connected');
    expect(res.headers.get('location')).toBe(`/console/connections/${row?.id}?notice=connected`);
    await w.settle();
    const page = await html(await browse(w.h, jar, res.headers.get('location') as string));
    expect(page).toContain('The first sync has started');
    expect(page).toContain('<span class="badge ok">healthy</span>');
    expect(page).not.toContain(w.hubspot.token);
    const [{ count } = { count: 0 }] = await w.h.database.db
      .select({ count: sql<number>`count(*)::int` })
      .from(accounts)
      .where(eq(accounts.workspaceId, w.ws.id));
    expect(count).toBeGreaterThan(0);
    expect(page).toMatch(new RegExp(`<dt>accounts</dt><dd>${count}</dd>`));
    expect(page).toMatch(/<td>connect<\/td><td>complete<\/td>/);
    // A healthy connection offers no reconnect.
    expect(page).not.toContain(`action="/console/connections/${row?.id}/reconnect"`);
    expect(decodeHtml(await (await browse(w.h, jar, '/console/connections')).text())).toContain(
      `<a href="/console/connections/${row?.id}">HubSpot</a>`,
    );
  });

  it('saves the CRM history window through the form', async () => {
    const row = await rowOf('hubspot');
    const page = await html(await browse(w.h, jar, `/console/connections/${row?.id}`));
    const action = `/console/connections/${row?.id}/crm-recency`;
    const res = await browse(w.h, jar, action, { form: { ...formFields(page, action), window: '24' } });
    expect(res.status).toBe(303);
    expect((await rowOf('hubspot'))?.config).toMatchObject({ crm_recency: { window: 24 } });
    expect(await html(await browse(w.h, jar, res.headers.get('location') as string))).toMatch(
      /<option value="24" selected="">24 months<\/option>/,
    );
  });

  it('disconnect is confirmed on its own page; only the confirmation POST disconnects; then a reconnect restores it', async () => {
    const row = await rowOf('hubspot');
    const base = `/console/connections/${row?.id}`;
    const detail = await html(await browse(w.h, jar, base));
    expect(detail).toContain(`href="${base}/disconnect"`);
    expect(detail).not.toContain(`action="${base}/disconnect"`);
    const confirm = await browse(w.h, jar, `${base}/disconnect`);
    expect(confirm.status).toBe(200);
    expect((await rowOf('hubspot'))?.status).toBe('connected');
    const confirmPage = await html(confirm);
    expect(confirmPage).toContain('Disconnect HubSpot?');
    const done = await browse(w.h, jar, `${base}/disconnect`, { form: formFields(confirmPage, `${base}/disconnect`) });
    expect(done.status).toBe(303);
    expect((await rowOf('hubspot'))?.status).toBe('disconnected');
    expect((await rowOf('hubspot'))?.credentialsSealed).toBeNull();

    const after = await html(await browse(w.h, jar, done.headers.get('location') as string));
    expect(after).toContain('Disconnected.');
    const reconnect = await browse(w.h, jar, `${base}/reconnect`, {
      form: { ...formFields(after, `${base}/reconnect`), api_key: w.hubspot.token },
    });
    expect(reconnect.status).toBe(303);
    expect((await rowOf('hubspot'))?.status).toBe('connected');
    await w.settle();
  });

  it('a webhook source shows its ingest URL and secret once, after the redirect', async () => {
    const fields = formFields(await html(await browse(w.h, jar, '/console/connections')), '/console/connections');
    const res = await browse(w.h, jar, '/console/connections', { form: { ...fields, connector_type: 'call_webhook' } });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/console/connections');
    const page = await html(await browse(w.h, jar, '/console/connections'));
    const secret = /id="ingest-secret" class="secret" readonly="" value="(whsec_[^"]+)"/.exec(page)?.[1];
    const url = /id="ingest-url" class="secret" readonly="" value="([^"]+)"/.exec(page)?.[1];
    const row = await rowOf('call_webhook');
    expect(secret).toBeTruthy();
    expect(url).toContain(row?.id);
    expect(row?.credentialsSealed).not.toContain(secret);
    // Shown once: a refresh does not show it again.
    expect(await html(await browse(w.h, jar, '/console/connections'))).not.toContain(secret);
  });

  it('OAuth: the connect form redirects to the provider, and its callback lands here with the outcome', async () => {
    const fields = formFields(await html(await browse(w.h, jar, '/console/connections')), '/console/connections');
    const res = await browse(w.h, jar, '/console/connections', { form: { ...fields, connector_type: 'salesforce' } });
    expect(res.status).toBe(303);
    const authorize = res.headers.get('location') as string;
    expect(authorize.startsWith(salesforce.url)).toBe(true);
    const { code, state } = salesforce.auth.consent(authorize);
    const callback = await browse(
      w.h,
      jar,
      `/api/platform/v1/connections/oauth/callback?${new URLSearchParams({ code, state })}`,
    );
    const landing = await browse(w.h, jar, callback.headers.get('location') as string);
    expect(landing.status).toBe(302);
    const location = landing.headers.get('location') as string;
    expect(location.startsWith('/console/connections?')).toBe(true);
    const page = await html(await browse(w.h, jar, location));
    expect(page).toContain('Connected with the provider');
    expect((await rowOf('salesforce'))?.status).toBe('connected');
    await w.settle();

    const denied = await html(
      await browse(w.h, jar, '/console?connection_result=denied&reason=access_denied&connection_id=x', {}).then((r) =>
        browse(w.h, jar, r.headers.get('location') as string),
      ),
    );
    expect(denied).toContain('The provider did not grant access (access_denied)');
  });
});

describe('members who may not connect', () => {
  it.each(['viewer', 'editor'] as const)(
    'a %s sees the connections but no connect forms; a forged connect is refused by the operation',
    async (who) => {
      const jar = await signInWithLink(w.h, w.ws[who].email);
      const page = await html(await browse(w.h, jar, '/console/connections'));
      expect(page).toContain('Your role does not allow connecting sources');
      expect(page).not.toContain('action="/console/connections"');
      const csrf = formFields(page, '/console/sign-out').csrf_token as string;
      const res = await browse(w.h, jar, '/console/connections', {
        form: { csrf_token: csrf, connector_type: 'bluesky', account_handle: 'acme.com' },
      });
      expect(res.status).toBe(403);
      expect(await html(res)).toMatch(/role="alert">[^<]*(role|scope)/);
      expect(await rowOf('bluesky')).toBeUndefined();
    },
  );

  it('a cross-site connect is refused before anything runs', async () => {
    const jar = await signInWithLink(w.h, w.ws.admin.email);
    const fields = formFields(await html(await browse(w.h, jar, '/console/connections')), '/console/connections');
    const res = await browse(w.h, jar, '/console/connections', {
      form: { ...fields, connector_type: 'bluesky', account_handle: 'acme.com' },
      headers: { origin: 'https://evil.example' },
    });
    expect(res.status).toBe(403);
    expect(await rowOf('bluesky')).toBeUndefined();
  });
});
