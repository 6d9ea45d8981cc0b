import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureMembership, removeMembership } from '../../functions/identity/members.js';
import { sha256Base64Url } from '../../platform/crypto.js';
import { ManualClock } from '../../platform/clock.js';
import { queryRows } from '../../platform/db/port.js';
import { newId, randomBase62 } from '../../platform/ids.js';
import { webhooks } from '../../schema/index.js';
import { answerConsent, browse, CookieJar, formFields, signInWithLink } from '../support/console-session.js';
import { createHarness, type Harness, type SeededWorkspace } from '../support/harness.js';

/** The attacks a security reviewer tries on an authorization server, each expected to fail safely. */
let h: Harness;
let ws: SeededWorkspace;
let other: SeededWorkspace;
const clock = new ManualClock('2026-11-23T10:00:00.000Z');
const REDIRECT = 'https://client.example/callback';

beforeAll(async () => {
  h = await createHarness({ clock });
  ws = await h.seedWorkspace('Tenant A');
  other = await h.seedWorkspace('Tenant B');
});
afterAll(async () => h.close());

interface RegisteredClient {
  client_id: string;
  client_secret?: string;
}

let ipCounter = 0;
async function registerClient(metadata: Record<string, unknown> = {}): Promise<RegisteredClient> {
  const res = await h.fetch('/api/platform/v1/oauth/register', {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-forwarded-for': `10.9.${Math.floor(ipCounter / 250)}.${ipCounter++ % 250}`,
    },
    body: JSON.stringify({
      client_name: 'Attack Surface App',
      redirect_uris: [REDIRECT],
      token_endpoint_auth_method: 'none',
      ...metadata,
    }),
  });
  expect(res.status).toBe(201);
  return res.json();
}

async function authorizationUrl(client: RegisteredClient, overrides: Record<string, string | undefined> = {}) {
  const verifier = randomBase62(64);
  const params: Record<string, string | undefined> = {
    response_type: 'code',
    client_id: client.client_id,
    redirect_uri: REDIRECT,
    scope: 'data:read',
    state: 'st-123',
    code_challenge: await sha256Base64Url(verifier),
    code_challenge_method: 'S256',
    ...overrides,
  };
  const query = new URLSearchParams(Object.entries(params).filter((e): e is [string, string] => e[1] !== undefined));
  return { url: `/api/platform/v1/oauth/authorize?${query}`, verifier };
}

function token(form: Record<string, string>, headers: Record<string, string> = {}) {
  return h.fetch('/api/platform/v1/oauth/token', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(form).toString(),
  });
}

/** Consent approved by `member` and the code exchanged: the tokens, as a client gets them. */
async function authorized(client: RegisteredClient, jar: CookieJar, scope = 'data:read') {
  const { url, verifier } = await authorizationUrl(client, { scope });
  const back = await answerConsent(h, jar, url, 'approve');
  const code = back.searchParams.get('code') as string;
  const res = await token({
    grant_type: 'authorization_code',
    code,
    redirect_uri: REDIRECT,
    code_verifier: verifier,
    client_id: client.client_id,
  });
  expect(res.status, await res.clone().text()).toBe(200);
  return {
    code,
    verifier,
    tokens: (await res.json()) as { access_token: string; refresh_token: string; scope: string },
  };
}

describe('authorize: never an open redirector', () => {
  it('an unknown client or an unregistered redirect URI is an error page, never a redirect', async () => {
    const jar = await signInWithLink(h, ws.admin.email);
    const client = await registerClient();
    for (const [label, overrides] of [
      ['unknown client', { client_id: 'cipc_doesnotexist' }],
      ['missing client', { client_id: undefined }],
      ['other redirect', { redirect_uri: 'https://evil.example/callback' }],
      ['prefix trick', { redirect_uri: `${REDIRECT}.evil.example` }],
      ['path trick', { redirect_uri: `${REDIRECT}/../../evil` }],
      ['query added', { redirect_uri: `${REDIRECT}?next=https://evil.example` }],
    ] as const) {
      const { url } = await authorizationUrl(client, overrides);
      const res = await browse(h, jar, url);
      expect(res.status, label).toBe(400);
      expect(res.headers.get('location'), label).toBeNull();
      expect(res.headers.get('content-type'), label).toMatch(/^text\/html/);
    }
    const dup = await browse(
      h,
      jar,
      `${(await authorizationUrl(client)).url}&redirect_uri=${encodeURIComponent('https://evil.example/cb')}`,
    );
    expect(dup.status).toBe(400);
    expect(dup.headers.get('location')).toBeNull();
  });

  it('other bad requests are an error page naming the OAuth error, never a redirect to the client, signed in or not', async () => {
    const signedIn = await signInWithLink(h, ws.admin.email);
    const client = await registerClient();
    for (const [overrides, error] of [
      [{ code_challenge: undefined }, 'invalid_request'],
      [{ code_challenge_method: 'plain' }, 'invalid_request'],
      [{ response_type: 'token' }, 'unsupported_response_type'],
      [{ response_type: 'x' }, 'unsupported_response_type'],
      [{ scope: 'data:read admin:everything' }, 'invalid_scope'],
      [{ resource: 'https://evil.example/api' }, 'invalid_target'],
    ] as const) {
      const { url } = await authorizationUrl(client, overrides);
      for (const [who, jar] of [
        ['signed in', signedIn],
        ['signed out', new CookieJar()],
      ] as const) {
        const label = `${error} (${JSON.stringify(overrides)}), ${who}`;
        const res = await browse(h, jar, url);
        expect(res.status, label).toBe(400);
        expect(res.headers.get('location'), label).toBeNull();
        expect(res.headers.get('content-type'), label).toMatch(/^text\/html/);
        expect(await res.text(), label).toContain(error);
      }
    }
  });

  it('the consent form posted with a request that does not validate is an error page, not a redirect', async () => {
    const jar = await signInWithLink(h, ws.admin.email);
    const client = await registerClient();
    const { url } = await authorizationUrl(client);
    const fields = formFields(await (await browse(h, jar, url)).text(), '/api/platform/v1/oauth/authorize');
    const res = await browse(h, jar, '/api/platform/v1/oauth/authorize', {
      form: { ...fields, response_type: 'x', decision: 'approve' },
    });
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
  });

  it('a sign-in link cannot chain into a redirect: return_to refuses the sign-in pages and a malformed authorization request', async () => {
    const client = await registerClient();
    const { url: good } = await authorizationUrl(client);
    const chained = [
      (await authorizationUrl(client, { response_type: 'x' })).url,
      (await authorizationUrl(client, { code_challenge_method: undefined })).url,
      (await authorizationUrl(client, { client_id: undefined })).url,
      `${good}&client_id=${encodeURIComponent(client.client_id)}`,
      '/console/sign-in/oidc',
      '/console/sign-in?return_to=https://evil.example/',
    ];
    const jar = new CookieJar();
    for (const returnTo of chained) {
      const page = await browse(h, jar, `/console/sign-in?return_to=${encodeURIComponent(returnTo)}`);
      const fields = formFields(await page.text(), '/console/sign-in/link');
      expect(fields.return_to, returnTo).toBe('/console');
    }
    const page = await browse(h, jar, `/console/sign-in?return_to=${encodeURIComponent(good)}`);
    expect(formFields(await page.text(), '/console/sign-in/link').return_to).toBe(good);
    // Signed in, the refused return_to lands on the console, never on the client.
    const signed = await signInWithLink(h, ws.viewer.email);
    const back = await browse(h, signed, `/console/sign-in?return_to=${encodeURIComponent(chained[0] as string)}`);
    expect(back.status).toBe(302);
    expect(back.headers.get('location')).toBe('/console');
  });

  it('a sign-in return_to cannot leave the console', async () => {
    const jar = new CookieJar();
    for (const evil of [
      'https://evil.example/',
      '//evil.example/x',
      '/\\evil.example',
      '/api/platform/v1/search/query',
      'javascript:alert(1)',
    ]) {
      const page = await browse(h, jar, `/console/sign-in?return_to=${encodeURIComponent(evil)}`);
      const fields = formFields(await page.text(), '/console/sign-in/link');
      expect(fields.return_to, evil).toBe('/console');
    }
  });

  it('sends a signed-out person to sign in, then back to the same authorization request', async () => {
    const client = await registerClient();
    const { url } = await authorizationUrl(client);
    const jar = new CookieJar();
    const res = await browse(h, jar, url);
    expect(res.status).toBe(302);
    const signIn = new URL(res.headers.get('location') as string, 'http://x');
    expect(signIn.pathname).toBe('/console/sign-in');
    expect(signIn.searchParams.get('return_to')).toBe(url);
    const signed = await signInWithLink(h, ws.viewer.email, jar);
    const page = await browse(h, signed, signIn.searchParams.get('return_to') as string);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Allow Attack Surface App to access your data?');
  });
});

describe('consent', () => {
  it('deny sends access_denied back with state', async () => {
    const jar = await signInWithLink(h, ws.viewer.email);
    const { url } = await authorizationUrl(await registerClient());
    const back = await answerConsent(h, jar, url, 'deny');
    expect(Object.fromEntries(back.searchParams)).toMatchObject({ error: 'access_denied', state: 'st-123' });
  });

  it("narrows the requested scopes to the member's role and shows what is left out", async () => {
    const jar = await signInWithLink(h, ws.viewer.email);
    const client = await registerClient();
    const { url } = await authorizationUrl(client, { scope: 'data:read webhooks:write' });
    const page = await (await browse(h, jar, url)).text();
    expect(page).toContain('Search and read your calls, emails, accounts and deals');
    expect(page).toMatch(/Not granted \(your role there does not allow it\): <code>webhooks:write<\/code>/);
    const { tokens } = await authorized(client, jar, 'data:read webhooks:write');
    expect(tokens.scope).toBe('data:read');
    // Nothing the role does not allow: only scopes above viewer requested → invalid_scope.
    const { url: adminOnly } = await authorizationUrl(client, { scope: 'webhooks:write' });
    const back = await answerConsent(h, jar, adminOnly, 'approve');
    expect(back.searchParams.get('error')).toBe('invalid_scope');
  });

  it('lets a member of several workspaces pick one, and refuses a workspace they are not in', async () => {
    await ensureMembership(h.database.db, other.id, ws.editor.userId, 'viewer');
    const jar = await signInWithLink(h, ws.editor.email);
    const client = await registerClient();
    const { url, verifier } = await authorizationUrl(client);
    const page = await (await browse(h, jar, url)).text();
    expect(page).toContain('<select id="consent-workspace"');
    expect(page).toContain('Tenant A');
    expect(page).toContain('Tenant B');
    const back = await answerConsent(h, jar, url, 'approve', { workspaceId: other.id });
    const res = await token({
      grant_type: 'authorization_code',
      code: back.searchParams.get('code') as string,
      redirect_uri: REDIRECT,
      code_verifier: verifier,
      client_id: client.client_id,
    });
    const status = await h.request('GET', '/setup/status', { bearer: (await res.json()).access_token });
    expect(status.body.data.workspace.id).toBe(other.id);

    const stranger = await h.seedWorkspace('Tenant C');
    const fields = formFields(await (await browse(h, jar, url)).text(), '/api/platform/v1/oauth/authorize');
    const refused = await browse(h, jar, '/api/platform/v1/oauth/authorize', {
      form: { ...fields, workspace_id: stranger.id, decision: 'approve' },
    });
    expect(refused.status).toBe(400);
    expect(refused.headers.get('location')).toBeNull();
  });

  it('refuses a consent POST without the CSRF token, with a wrong one, or from another origin', async () => {
    const jar = await signInWithLink(h, ws.admin.email);
    const { url } = await authorizationUrl(await registerClient());
    const fields = formFields(await (await browse(h, jar, url)).text(), '/api/platform/v1/oauth/authorize');
    const { csrf_token: _csrf, ...withoutToken } = fields;
    for (const [label, form, headers] of [
      ['no token', { ...withoutToken, decision: 'approve' }, {}],
      ['wrong token', { ...fields, csrf_token: 'f'.repeat(64), decision: 'approve' }, {}],
      ['cross-origin', { ...fields, decision: 'approve' }, { origin: 'https://evil.example' }],
      ['cross-site fetch', { ...fields, decision: 'approve' }, { 'sec-fetch-site': 'cross-site' }],
    ] as const) {
      const res = await browse(h, jar, '/api/platform/v1/oauth/authorize', { form, headers });
      expect(res.status, label).toBe(403);
      expect(res.headers.get('location'), label).toBeNull();
    }
    // Another member's CSRF token does not work for this session either.
    const otherJar = await signInWithLink(h, ws.viewer.email);
    const otherFields = formFields(await (await browse(h, otherJar, url)).text(), '/api/platform/v1/oauth/authorize');
    const swapped = await browse(h, jar, '/api/platform/v1/oauth/authorize', {
      form: { ...fields, csrf_token: otherFields.csrf_token as string, decision: 'approve' },
    });
    expect(swapped.status).toBe(403);
  });

  it('pages cannot be framed and are not cached', async () => {
    const jar = await signInWithLink(h, ws.admin.email);
    const res = await browse(h, jar, (await authorizationUrl(await registerClient())).url);
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('content-security-policy')).toMatch(/frame-ancestors 'none'/);
    expect(res.headers.get('content-security-policy')).toMatch(/form-action 'self' https:\/\/client\.example/);
    expect(res.headers.get('cache-control')).toBe('no-store');
  });
});

describe('token endpoint', () => {
  it('a replayed code is refused and revokes every token issued from it', async () => {
    const jar = await signInWithLink(h, ws.admin.email);
    const client = await registerClient();
    const { code, verifier, tokens } = await authorized(client, jar);
    expect((await h.request('GET', '/setup/status', { bearer: tokens.access_token })).status).toBe(200);
    const replay = await token({
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT,
      code_verifier: verifier,
      client_id: client.client_id,
    });
    expect(replay.status).toBe(400);
    expect(await replay.json()).toMatchObject({ error: 'invalid_grant' });
    expect((await h.request('GET', '/setup/status', { bearer: tokens.access_token })).status).toBe(401);
    const refresh = await token({
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
      client_id: client.client_id,
    });
    expect(await refresh.json()).toMatchObject({ error: 'invalid_grant' });
  });

  it('one code redeemed twice at once: one exchange gets tokens, the other invalid_grant, and those tokens die', {
    tags: ['race'],
  }, async () => {
    const jar = await signInWithLink(h, ws.admin.email);
    const client = await registerClient();
    const { url, verifier } = await authorizationUrl(client);
    const code = (await answerConsent(h, jar, url, 'approve')).searchParams.get('code') as string;
    const form = {
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT,
      code_verifier: verifier,
      client_id: client.client_id,
    };
    const answers = await Promise.all([token(form), token(form)]);
    const bodies = await Promise.all(answers.map((res) => res.json()));
    expect(answers.map((res) => res.status).sort()).toEqual([200, 400]);
    const issued = bodies.find((body) => body.access_token) as { access_token: string; refresh_token: string };
    expect(bodies.find((body) => body.error)).toMatchObject({ error: 'invalid_grant' });
    // The second presentation is a replay (RFC 6749 10.5): what the first one got is revoked with the grant.
    expect((await h.request('GET', '/setup/status', { bearer: issued.access_token })).status).toBe(401);
    const [grant] = await queryRows<{ reason: string | null; issued: number; live: number }>(
      h.database.db,
      sql`select g.revoked_reason as reason, count(t.id)::int as issued, count(t.id) filter (where t.revoked_at is null)::int as live
          from oauth_authorization_codes c join oauth_grants g on g.id = c.grant_id
          left join oauth_tokens t on t.grant_id = g.id
          where c.code_hash = encode(sha256(convert_to(${code}, 'UTF8')), 'hex') group by g.id`,
    );
    expect(grant).toEqual({ reason: 'code_replay', issued: 1, live: 0 });
  });

  it('a PKCE mismatch, a wrong redirect URI or another client is invalid_grant, and the code is spent', async () => {
    const jar = await signInWithLink(h, ws.admin.email);
    const client = await registerClient();
    const intruder = await registerClient();
    for (const [label, change] of [
      ['pkce', (f: Record<string, string>) => ({ ...f, code_verifier: randomBase62(64) })],
      ['redirect', (f: Record<string, string>) => ({ ...f, redirect_uri: 'https://client.example/other' })],
      ['client', (f: Record<string, string>) => ({ ...f, client_id: intruder.client_id })],
    ] as const) {
      const { url, verifier } = await authorizationUrl(client);
      const code = (await answerConsent(h, jar, url, 'approve')).searchParams.get('code') as string;
      const good = {
        grant_type: 'authorization_code',
        code,
        redirect_uri: REDIRECT,
        code_verifier: verifier,
        client_id: client.client_id,
      };
      const bad = await token(change(good));
      expect(bad.status, label).toBe(400);
      expect(await bad.json(), label).toMatchObject({ error: 'invalid_grant' });
      // The code is single use whatever the outcome: the legitimate exchange now fails too.
      expect((await (await token(good)).json()).error, label).toBe('invalid_grant');
    }
  });

  it('codes expire after two minutes', async () => {
    const jar = await signInWithLink(h, ws.admin.email);
    const client = await registerClient();
    const { url, verifier } = await authorizationUrl(client);
    const code = (await answerConsent(h, jar, url, 'approve')).searchParams.get('code') as string;
    clock.advance(121_000);
    const res = await token({
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT,
      code_verifier: verifier,
      client_id: client.client_id,
    });
    expect(await res.json()).toMatchObject({
      error: 'invalid_grant',
      error_description: expect.stringMatching(/expired/),
    });
  });

  it('a reused refresh token revokes its whole family', async () => {
    const jar = await signInWithLink(h, ws.admin.email);
    const client = await registerClient();
    const { tokens } = await authorized(client, jar);
    const first = await (
      await token({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: client.client_id })
    ).json();
    expect(first.refresh_token).toBeTruthy();
    const reuse = await token({
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
      client_id: client.client_id,
    });
    expect(reuse.status).toBe(400);
    expect(await reuse.json()).toMatchObject({ error: 'invalid_grant' });
    // The rotated token and every access token of the family are dead.
    expect(
      (
        await (
          await token({ grant_type: 'refresh_token', refresh_token: first.refresh_token, client_id: client.client_id })
        ).json()
      ).error,
    ).toBe('invalid_grant');
    for (const access of [tokens.access_token, first.access_token])
      expect((await h.request('GET', '/setup/status', { bearer: access })).status).toBe(401);
  });

  it('one refresh token rotated twice at once: one rotation succeeds, the other is a reuse that revokes the family', {
    tags: ['race'],
  }, async () => {
    const jar = await signInWithLink(h, ws.admin.email);
    const client = await registerClient();
    const { tokens } = await authorized(client, jar);
    const form = { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: client.client_id };
    const answers = await Promise.all([token(form), token(form)]);
    const bodies = await Promise.all(answers.map((res) => res.json()));
    expect(answers.map((res) => res.status).sort()).toEqual([200, 400]);
    const rotated = bodies.find((body) => body.refresh_token) as { access_token: string; refresh_token: string };
    expect(bodies.find((body) => body.error)).toMatchObject({ error: 'invalid_grant' });
    // Never two live successors of one token: the reuse revoked the grant, the rotated pair included.
    expect((await token({ ...form, refresh_token: rotated.refresh_token })).status).toBe(400);
    for (const access of [tokens.access_token, rotated.access_token])
      expect((await h.request('GET', '/setup/status', { bearer: access })).status).toBe(401);
    const [family] = await queryRows<{ reason: string | null; successors: number; live: number }>(
      h.database.db,
      sql`select g.revoked_reason as reason,
            (select count(*)::int from oauth_refresh_tokens s where s.grant_id = g.id and s.token_hash <> r.token_hash) as successors,
            (select count(*)::int from oauth_tokens t where t.grant_id = g.id and t.revoked_at is null) as live
          from oauth_refresh_tokens r join oauth_grants g on g.id = r.grant_id
          where r.token_hash = encode(sha256(convert_to(${tokens.refresh_token}, 'UTF8')), 'hex')`,
    );
    expect(family).toEqual({ reason: 'refresh_reuse', successors: 1, live: 0 });
  });

  it("another client cannot use or burn a client's refresh token", async () => {
    const jar = await signInWithLink(h, ws.admin.email);
    const client = await registerClient();
    const intruder = await registerClient();
    const { tokens } = await authorized(client, jar);
    const stolen = await token({
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
      client_id: intruder.client_id,
    });
    expect(await stolen.json()).toMatchObject({ error: 'invalid_grant' });
    const legit = await token({
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
      client_id: client.client_id,
    });
    expect(legit.status).toBe(200);
  });

  it('authenticates confidential clients and answers invalid_client in the RFC format', async () => {
    const jar = await signInWithLink(h, ws.admin.email);
    const client = await registerClient({ token_endpoint_auth_method: 'client_secret_basic' });
    const { url, verifier } = await authorizationUrl(client);
    const code = (await answerConsent(h, jar, url, 'approve')).searchParams.get('code') as string;
    const form = { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier };
    const basic = (secret: string) => ({ authorization: `Basic ${btoa(`${client.client_id}:${secret}`)}` });
    const wrong = await token(form, basic('cips_wrong'));
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('www-authenticate')).toMatch(/^Basic/);
    expect(await wrong.json()).toMatchObject({ error: 'invalid_client' });
    const noAuth = await token({ ...form, client_id: client.client_id });
    expect((await noAuth.json()).error).toBe('invalid_client');
    const ok = await token(form, basic(client.client_secret as string));
    expect(ok.status).toBe(200);
    expect(ok.headers.get('cache-control')).toBe('no-store');
  });

  it('refuses what is not a proper token request', async () => {
    const client = await registerClient();
    const json = await h.fetch('/api/platform/v1/oauth/token', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(await json.json()).toMatchObject({ error: 'invalid_request' });
    expect((await (await token({ grant_type: 'password', client_id: client.client_id })).json()).error).toBe(
      'unsupported_grant_type',
    );
    expect((await (await token({ grant_type: 'authorization_code', client_id: client.client_id })).json()).error).toBe(
      'invalid_request',
    );
    const dup = await h.fetch('/api/platform/v1/oauth/token', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `grant_type=refresh_token&refresh_token=a&refresh_token=b&client_id=${client.client_id}`,
    });
    expect((await dup.json()).error).toBe('invalid_request');
  });
});

describe('tokens in use', () => {
  it('membership is re-checked on every request: a member removed mid-session loses API, refresh and console', async () => {
    const leaver = await h.seedWorkspace('Leaver workspace');
    const jar = await signInWithLink(h, leaver.editor.email);
    const { tokens } = await authorized(await registerClient(), jar);
    expect((await h.request('GET', '/setup/status', { bearer: tokens.access_token })).status).toBe(200);
    expect((await browse(h, jar, '/console/keys')).status).toBe(200);

    await removeMembership(h.database.db, leaver.id, leaver.editor.userId);
    const api = await h.request('GET', '/setup/status', { bearer: tokens.access_token });
    expect(api.status).toBe(403);
    expect(api.body.error.code).toBe('forbidden');
    const page = await browse(h, jar, '/console/keys');
    expect(page.status).toBe(403);
    expect(await page.text()).toContain('no longer a member');
  });

  it("a demoted member's refresh gets only what the new role allows", async () => {
    const team = await h.seedWorkspace('Demotion workspace');
    const jar = await signInWithLink(h, team.editor.email);
    const client = await registerClient();
    const { tokens } = await authorized(client, jar, 'data:read webhooks:read');
    expect(tokens.scope).toBe('data:read webhooks:read');
    await ensureMembership(h.database.db, team.id, team.editor.userId, 'viewer');
    const refreshed = await (
      await token({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: client.client_id })
    ).json();
    expect(refreshed.scope).toBe('data:read');
    const hooks = await h.request('GET', '/webhooks', { bearer: refreshed.access_token });
    expect(hooks.status).toBe(403);
    expect(hooks.body.error.code).toBe('scope_denied');
  });

  it("a token for workspace A addressing workspace B's objects gets 404", async () => {
    const jar = await signInWithLink(h, ws.admin.email);
    const { tokens } = await authorized(await registerClient(), jar, 'webhooks:read webhooks:write');
    const foreignId = newId();
    await h.database.db.insert(webhooks).values({
      id: foreignId,
      workspaceId: other.id,
      userId: other.admin.userId,
      url: 'https://hooks.example/b',
      events: ['session.completed'],
      secretSealed: await h.services.secretBox.seal('whsec_tenant_b'),
    });
    expect((await h.request('GET', `/webhooks/${foreignId}`, { key: other.admin.key })).status).toBe(200);
    const foreign = await h.request('GET', `/webhooks/${foreignId}`, { bearer: tokens.access_token });
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.code).toBe('not_found');
  });

  it('revocation (RFC 7009) answers 200 for unknown tokens and revokes an access token alone', async () => {
    const jar = await signInWithLink(h, ws.admin.email);
    const client = await registerClient();
    const { tokens } = await authorized(client, jar);
    const revoke = (t: string, clientId = client.client_id) =>
      h.fetch('/api/platform/v1/oauth/revoke', {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ token: t, client_id: clientId }).toString(),
      });
    expect((await revoke('not-a-token')).status).toBe(200);
    // Another client cannot revoke it.
    expect((await revoke(tokens.access_token, (await registerClient()).client_id)).status).toBe(200);
    expect((await h.request('GET', '/setup/status', { bearer: tokens.access_token })).status).toBe(200);
    expect((await revoke(tokens.access_token)).status).toBe(200);
    expect((await h.request('GET', '/setup/status', { bearer: tokens.access_token })).status).toBe(401);
    // The refresh token still works: only that access token was revoked.
    expect(
      (await token({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: client.client_id }))
        .status,
    ).toBe(200);
  });
});
