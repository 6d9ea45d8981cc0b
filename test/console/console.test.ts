import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSignInLink } from '../../functions/identity/console-sessions.js';
import { FIRST_START_KEY_NAME } from '../../functions/embedded/first-start-key.js';
import { ManualClock } from '../../platform/clock.js';
import { apiKeys, consoleFlashes } from '../../schema/index.js';
import {
  answerConsent,
  browse,
  CookieJar,
  decodeHtml,
  formFields,
  signInWithLink,
} from '../support/console-session.js';
import { startFakeOidcProvider, type FakeOidcProvider } from '../support/fake-oidc-provider.js';
import { createHarness, type Harness, type SeededWorkspace } from '../support/harness.js';
import { sha256Base64Url } from '../../platform/crypto.js';
import { randomBase62 } from '../../platform/ids.js';

/** The console as a person uses it, through its pages (server-rendered HTML forms). */
let h: Harness;
let ws: SeededWorkspace;
let idp: FakeOidcProvider;
const clock = new ManualClock('2026-11-23T09:00:00.000Z');

beforeAll(async () => {
  idp = await startFakeOidcProvider();
  h = await createHarness({
    clock,
    identityProviderFetch: idp.fetch,
    env: {
      CONSOLE_OIDC_ISSUER: idp.issuer,
      CONSOLE_OIDC_CLIENT_ID: idp.clientId,
      CONSOLE_OIDC_CLIENT_SECRET: idp.clientSecret,
    },
  });
  ws = await h.seedWorkspace('Console Workspace');
});
afterAll(async () => h.close());

const html = async (res: Response) => decodeHtml(await res.text());

describe('sign-in with a one-time link', () => {
  it('opening the link only shows a button; pressing it signs in with a hardened cookie', async () => {
    const jar = new CookieJar();
    const { url } = await createSignInLink(h.database.db, h.services.config.publicUrl, ws.viewer.email, clock.now());
    const page = await browse(h, jar, url);
    expect(page.status).toBe(200);
    expect(jar.get('cip_console')).toBeUndefined();
    const done = await browse(h, jar, '/console/sign-in/link', {
      form: formFields(await page.text(), '/console/sign-in/link'),
    });
    expect(done.status).toBe(303);
    expect(done.headers.get('location')).toBe('/console');
    const cookie = jar.seen.find((c) => c.startsWith('cip_console='));
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    expect(cookie).toMatch(/Secure/);
    expect(cookie).toMatch(/Path=\//);
    expect((await browse(h, jar, '/console')).headers.get('location')).toBe('/console/keys');
  });

  it('sets no Secure flag on a loopback address, where browsers would drop it over http', async () => {
    const loopback = await createHarness({ database: h.database, env: { PUBLIC_URL: 'http://127.0.0.1:8787' } });
    const jar = await signInWithLink(loopback, ws.viewer.email);
    const cookie = jar.seen.find((c) => c.startsWith('cip_console='));
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).not.toMatch(/Secure/);
  });

  it('a link works once and for 15 minutes', async () => {
    const { url } = await createSignInLink(h.database.db, h.services.config.publicUrl, ws.viewer.email, clock.now());
    const first = new CookieJar();
    const fields = formFields(await (await browse(h, first, url)).text(), '/console/sign-in/link');
    expect((await browse(h, first, '/console/sign-in/link', { form: fields })).status).toBe(303);
    const second = new CookieJar();
    const again = await browse(h, second, '/console/sign-in/link', {
      form: formFields(await (await browse(h, second, url)).text(), '/console/sign-in/link'),
    });
    expect(again.status).toBe(400);
    expect(await html(again)).toContain('already used, has expired');
    expect(second.get('cip_console')).toBeUndefined();

    const late = await createSignInLink(h.database.db, h.services.config.publicUrl, ws.viewer.email, clock.now());
    clock.advance(15 * 60_000 + 1000);
    const jar = new CookieJar();
    const expired = await browse(h, jar, '/console/sign-in/link', {
      form: formFields(await (await browse(h, jar, late.url)).text(), '/console/sign-in/link'),
    });
    expect(expired.status).toBe(400);
  });

  it('the sign-in form needs its CSRF cookie, and repeated attempts from one address are limited', async () => {
    const { url } = await createSignInLink(h.database.db, h.services.config.publicUrl, ws.viewer.email, clock.now());
    const jar = new CookieJar();
    const fields = formFields(await (await browse(h, jar, url)).text(), '/console/sign-in/link');
    jar.delete('cip_sign_in_csrf');
    const forged = await browse(h, jar, '/console/sign-in/link', { form: fields });
    expect(forged.status).toBe(403);

    const guesser = new CookieJar();
    const guessFields = formFields(
      await (await browse(h, guesser, '/console/sign-in')).text(),
      '/console/sign-in/link',
    );
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++)
      statuses.push(
        (await browse(h, guesser, '/console/sign-in/link', { form: { ...guessFields, link: randomBase62(43) } }))
          .status,
      );
    expect(statuses.slice(0, 10).every((s) => s === 400)).toBe(true);
    expect(statuses[10]).toBe(429);
  });

  it('accepts a pasted link on the sign-in page and returns to where the person was going', async () => {
    const { url } = await createSignInLink(h.database.db, h.services.config.publicUrl, ws.viewer.email, clock.now());
    const jar = new CookieJar();
    const redirect = await browse(h, jar, '/console/apps');
    expect(redirect.headers.get('location')).toBe('/console/sign-in?return_to=%2Fconsole%2Fapps');
    const fields = formFields(
      await (await browse(h, jar, redirect.headers.get('location') as string)).text(),
      '/console/sign-in/link',
    );
    const done = await browse(h, jar, '/console/sign-in/link', { form: { ...fields, link: url } });
    expect(done.headers.get('location')).toBe('/console/apps');
  });

  it('sign-out ends the session: the old cookie no longer works', async () => {
    const jar = await signInWithLink(h, ws.viewer.email);
    const stolen = jar.get('cip_console') as string;
    const keys = await browse(h, jar, '/console/keys');
    const signOut = formFields(await keys.text(), '/console/sign-out');
    expect((await browse(h, jar, '/console/sign-out', { form: signOut })).status).toBe(303);
    expect(jar.get('cip_console')).toBeUndefined();
    const replay = await browse(h, jar, '/console/keys', { headers: { cookie: `cip_console=${stolen}` } });
    expect(replay.status).toBe(302);
  });

  it('is off when CONSOLE_SIGN_IN_LINKS=0', async () => {
    const off = await createHarness({ database: h.database, env: { CONSOLE_SIGN_IN_LINKS: '0' } });
    const { url } = await createSignInLink(h.database.db, off.services.config.publicUrl, ws.viewer.email, clock.now());
    expect((await browse(off, new CookieJar(), url)).status).toBe(404);
  });
});

describe('sign-in through the identity provider (OIDC, authorization code + PKCE)', () => {
  async function oidcSignIn(email: string, verified = true): Promise<{ jar: CookieJar; final: Response }> {
    idp.signInAs({ email, email_verified: verified });
    const jar = new CookieJar();
    const start = await browse(h, jar, '/console/sign-in/oidc?return_to=%2Fconsole%2Fapps');
    expect(start.status).toBe(302);
    const authorize = new URL(start.headers.get('location') as string);
    expect(authorize.origin).toBe(idp.issuer);
    expect(authorize.searchParams.get('code_challenge_method')).toBe('S256');
    const atProvider = await idp.visit(authorize.toString());
    const callback = new URL(atProvider.headers.get('location') as string);
    const final = await browse(h, jar, `${callback.pathname}${callback.search}`);
    return { jar, final };
  }

  it('signs a member in and returns them where they were going', async () => {
    const { jar, final } = await oidcSignIn(ws.editor.email.toUpperCase());
    expect(final.status, await final.clone().text()).toBe(303);
    expect(final.headers.get('location')).toBe('/console/apps');
    expect(idp.tokenRequests.at(-1)?.get('code_verifier')).toBeTruthy();
    expect(await html(await browse(h, jar, '/console/apps'))).toContain(ws.editor.email);
  });

  it('refuses a person who is not a member, and an unverified email', async () => {
    const stranger = await oidcSignIn('stranger@elsewhere.example');
    expect(stranger.final.status).toBe(403);
    expect(stranger.jar.get('cip_console')).toBeUndefined();
    const unverified = await oidcSignIn(ws.editor.email, false);
    expect(unverified.final.status).toBe(400);
    expect(await html(unverified.final)).toContain('not verified');
  });

  it('refuses a callback that was not started in this browser', async () => {
    idp.signInAs({ email: ws.editor.email });
    const starter = new CookieJar();
    const start = await browse(h, starter, '/console/sign-in/oidc');
    const callback = new URL(
      (await idp.visit(start.headers.get('location') as string)).headers.get('location') as string,
    );
    const victim = new CookieJar();
    const res = await browse(h, victim, `${callback.pathname}${callback.search}`);
    expect(res.status).toBe(400);
    expect(victim.get('cip_console')).toBeUndefined();
  });
});

describe('API keys page', () => {
  it('offers only the bundles the role may mint and refuses the others server-side', async () => {
    const jar = await signInWithLink(h, ws.viewer.email);
    const page = await html(await browse(h, jar, '/console/keys'));
    expect(page).toContain('<option value="customer_agent"');
    expect(page).toContain('<option value="read_only"');
    expect(page).not.toContain('<option value="internal_agent"');
    expect(page).not.toContain('<option value="full_admin"');
    const fields = formFields(page, '/console/keys');
    const before = await h.database.db.select().from(apiKeys).where(eq(apiKeys.userId, ws.viewer.userId));
    const refused = await browse(h, jar, '/console/keys', {
      form: { ...fields, name: 'sneaky', bundle: 'full_admin', expires_in_days: '30' },
    });
    expect(refused.status).toBe(403);
    expect(await html(refused)).toContain('Full admin bundle can only be given to members with role admin');
    expect(await h.database.db.select().from(apiKeys).where(eq(apiKeys.userId, ws.viewer.userId))).toHaveLength(
      before.length,
    );
  });

  it('creates a key shown once, which works, is listed by prefix, and stops working when revoked', async () => {
    const jar = await signInWithLink(h, ws.editor.email);
    const fields = formFields(await (await browse(h, jar, '/console/keys')).text(), '/console/keys');
    const created = await browse(h, jar, '/console/keys', {
      form: { ...fields, name: 'Laptop script', bundle: 'internal_agent', expires_in_days: '30' },
    });
    // POST-redirect-GET: the answer is a redirect with no secret in it; the page after it shows the key once.
    expect(created.status).toBe(303);
    expect(created.headers.get('location')).toBe('/console/keys');
    const shown = await browse(h, jar, '/console/keys');
    expect(shown.headers.get('cache-control')).toBe('no-store');
    const body = await html(shown);
    const key = /id="new-key" class="secret" readonly="" value="(cip_[0-9A-Za-z]{40})"/.exec(body)?.[1] as string;
    expect(key).toBeTruthy();
    // At rest the waiting key is sealed, and it is gone once shown.
    expect(await h.database.db.select().from(consoleFlashes)).not.toContainEqual(
      expect.objectContaining({ sealed: expect.stringContaining(key) }),
    );
    expect(body).toContain('only time it is shown');

    const status = await h.request('GET', '/setup/status', { key });
    expect(status.status).toBe(200);
    expect(status.body.data.caller).toMatchObject({ email: ws.editor.email, bundle: 'internal_agent' });

    const list = await html(await browse(h, jar, '/console/keys'));
    expect(list).toContain('Laptop script');
    expect(list).toContain(`${key.slice(0, 12)}…`);
    expect(list).not.toContain(key);
    const [row] = await h.database.db
      .select()
      .from(apiKeys)
      .where(eq(apiKeys.prefix, key.slice(0, 12)));
    expect(row?.expiresAt?.toISOString()).toBe(new Date(clock.now().getTime() + 30 * 86_400_000).toISOString());

    // A refresh shows the key no more, and creates nothing.
    expect(list).not.toContain('only time it is shown');
    // Revoking is confirmed on its own page: the list only links there.
    expect(list).toContain(`href="/console/keys/${row?.id}/revoke"`);
    expect(list).not.toContain(`action="/console/keys/${row?.id}/revoke"`);
    const confirm = await html(await browse(h, jar, `/console/keys/${row?.id}/revoke`));
    expect(confirm).toContain('Revoke the key \u201cLaptop script\u201d?');
    expect((await h.request('GET', '/setup/status', { key })).status).toBe(200);
    const revokeForm = formFields(confirm, `/console/keys/${row?.id}/revoke`);
    const revoked = await browse(h, jar, `/console/keys/${row?.id}/revoke`, { form: revokeForm });
    expect(revoked.status).toBe(303);
    expect(await html(await browse(h, jar, revoked.headers.get('location') as string))).toContain('The key is revoked');
    const after = await h.request('GET', '/setup/status', { key });
    expect(after.status).toBe(401);
  });

  it('names the field when the form is wrong, and creates nothing', async () => {
    const jar = await signInWithLink(h, ws.editor.email);
    const fields = formFields(await (await browse(h, jar, '/console/keys')).text(), '/console/keys');
    const res = await browse(h, jar, '/console/keys', {
      form: { ...fields, name: '   ', bundle: 'customer_agent', expires_in_days: '30' },
    });
    expect(res.status).toBe(400);
    expect(await html(res)).toMatch(/name/);
    const odd = await browse(h, jar, '/console/keys', {
      form: { ...fields, name: 'x', bundle: 'customer_agent', expires_in_days: '12' },
    });
    expect(odd.status).toBe(400);
    expect(await html(odd)).toMatch(/expires_in_days/);
  });

  it('refuses a create without the CSRF token', async () => {
    const jar = await signInWithLink(h, ws.editor.email);
    const fields = formFields(await (await browse(h, jar, '/console/keys')).text(), '/console/keys');
    const { csrf_token: _t, ...rest } = fields;
    const res = await browse(h, jar, '/console/keys', {
      form: { ...rest, name: 'csrf', bundle: 'customer_agent', expires_in_days: '30' },
    });
    expect(res.status).toBe(403);
    const names = (await h.database.db.select().from(apiKeys).where(eq(apiKeys.userId, ws.editor.userId))).map(
      (k) => k.name,
    );
    expect(names).not.toContain('csrf');
  });

  it("an admin sees and may revoke members' keys; a viewer cannot revoke another member's key", async () => {
    const { keyId } = await ws.keyFor(ws.admin, 'full_admin', { name: 'admin-owned' });
    const viewer = await signInWithLink(h, ws.viewer.email);
    const viewerPage = await html(await browse(h, viewer, '/console/keys'));
    expect(viewerPage).not.toContain('admin-owned');
    const csrf = formFields(viewerPage, '/console/keys').csrf_token as string;
    const refused = await browse(h, viewer, `/console/keys/${keyId}/revoke`, { form: { csrf_token: csrf } });
    expect(refused.status).toBe(404);

    const admin = await signInWithLink(h, ws.admin.email);
    const adminPage = await html(await browse(h, admin, '/console/keys'));
    expect(adminPage).toContain('admin-owned');
    expect(adminPage).toContain(ws.viewer.email);
  });

  it("warns on the confirmation that the demo admin's first-start key, or a key used today, is in use", async () => {
    const { key, keyId } = await ws.keyFor(ws.admin, 'full_admin', { name: FIRST_START_KEY_NAME });
    const admin = await signInWithLink(h, ws.admin.email);
    const before = await html(await browse(h, admin, `/console/keys/${keyId}/revoke`));
    expect(before).toContain('This is the demo admin key printed at the first npm start');
    expect(before).not.toContain('It is in use');
    expect((await h.request('GET', '/setup/status', { key })).status).toBe(200);
    const after = await html(await browse(h, admin, `/console/keys/${keyId}/revoke`));
    expect(after).toMatch(/It is in use: its last request was at \d{4}-\d\d-\d\d \d\d:\d\d UTC/);
    // Another member's key with the same name is not the demo admin's own key.
    const other = await ws.keyFor(ws.editor, 'customer_agent', { name: FIRST_START_KEY_NAME });
    expect(await html(await browse(h, admin, `/console/keys/${other.keyId}/revoke`))).not.toContain('first npm start');
  });

  it('the key operations are console-only: an API caller gets 403 not_on_public_api', async () => {
    const res = await h.request('POST', '/console/api-keys', {
      key: ws.admin.key,
      body: { name: 'x', bundle: 'full_admin', expires_in_days: null },
    });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('not_on_public_api');
  });
});

describe('the signed-out page and the OAuth return', () => {
  it('says the admin CLI needs the server stopped (the data folder free) before login-link', async () => {
    const page = await html(await browse(h, new CookieJar(), '/console/sign-in'));
    expect(page).toContain('npm run -s admin -- login-link --email you@example.com');
    expect(page).toContain('stop the server first');
  });

  it("forwards a source's OAuth outcome from /console to the connections page, query kept", async () => {
    const res = await browse(h, new CookieJar(), '/console?connection_id=abc&connection_result=denied&reason=x');
    expect(res.headers.get('location')).toBe(
      '/console/connections?connection_id=abc&connection_result=denied&reason=x',
    );
  });
});

describe('authorized applications page and the workspace switch', () => {
  it('lists the applications the member authorized and revokes one', async () => {
    const jar = await signInWithLink(h, ws.editor.email);
    const reg = await (
      await h.fetch('/api/platform/v1/oauth/register', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': '10.77.0.1' },
        body: JSON.stringify({
          client_name: 'Notebook Assistant',
          redirect_uris: ['https://notebook.example/cb'],
          token_endpoint_auth_method: 'none',
        }),
      })
    ).json();
    const verifier = randomBase62(64);
    const url = `/api/platform/v1/oauth/authorize?${new URLSearchParams({ response_type: 'code', client_id: reg.client_id, redirect_uri: 'https://notebook.example/cb', code_challenge: await sha256Base64Url(verifier), code_challenge_method: 'S256', scope: 'data:read' })}`;
    const code = (await answerConsent(h, jar, url, 'approve')).searchParams.get('code') as string;
    // Not yet an authorized app: the code was never exchanged.
    expect(await html(await browse(h, jar, '/console/apps'))).not.toContain('Notebook Assistant');
    const tokens = await (
      await h.fetch('/api/platform/v1/oauth/token', {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          code,
          redirect_uri: 'https://notebook.example/cb',
          code_verifier: verifier,
          client_id: reg.client_id,
        }).toString(),
      })
    ).json();
    const page = await html(await browse(h, jar, '/console/apps'));
    expect(page).toContain('Notebook Assistant');
    expect(page).toContain('notebook.example');
    const grantId = /href="\/console\/apps\/([0-9a-f-]{36})\/revoke"/.exec(page)?.[1] as string;
    const confirm = await html(await browse(h, jar, `/console/apps/${grantId}/revoke`));
    expect(confirm).toContain('Revoke Notebook Assistant?');
    const revoked = await browse(h, jar, `/console/apps/${grantId}/revoke`, {
      form: formFields(confirm, `/console/apps/${grantId}/revoke`),
    });
    expect(revoked.status).toBe(303);
    expect((await h.request('GET', '/setup/status', { bearer: tokens.access_token })).status).toBe(401);
    expect(await html(await browse(h, jar, '/console/apps'))).not.toContain('Notebook Assistant');
  });

  it('switches between the workspaces the member belongs to, and only those', async () => {
    const second = await h.seedWorkspace('Second Console Workspace');
    const { ensureMembership } = await import('../../functions/identity/members.js');
    await ensureMembership(h.database.db, second.id, ws.viewer.userId, 'editor');
    const jar = await signInWithLink(h, ws.viewer.email);
    const page = await html(await browse(h, jar, '/console/keys'));
    expect(page).toContain('id="workspace-switch"');
    const fields = formFields(page, '/console/workspace');
    expect((await browse(h, jar, '/console/workspace', { form: { ...fields, workspace_id: second.id } })).status).toBe(
      303,
    );
    const switched = await html(await browse(h, jar, '/console/keys'));
    expect(switched).toMatch(new RegExp(`<option value="${second.id}" selected`));
    // Editor there: Internal agent is offered.
    expect(switched).toContain('<option value="internal_agent"');
    const stranger = await h.seedWorkspace('Not Mine');
    await browse(h, jar, '/console/workspace', { form: { ...fields, workspace_id: stranger.id } });
    expect(await html(await browse(h, jar, '/console/keys'))).not.toContain('Not Mine');
  });
});
