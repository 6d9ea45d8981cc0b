import * as oauth from 'oauth4webapi';
import { afterAll, describe, expect, it } from 'vitest';
import { createSignInLink } from '../../functions/identity/console-sessions.js';
import { DEMO_ADMIN_EMAIL } from '../../functions/embedded/demo-bootstrap.js';
import { CookieJar, formFields } from '../support/console-session.js';
import { BUDGETS } from './budgets.js';
import { api, closeSql, database, edge, measure, sql } from './support.js';

/**
 * The OAuth authorization-code flow through the real bundle in workerd, as a third-party client
 * runs it (oauth4webapi): register, sign the member in with a one-time link, consent, exchange the
 * code (held to its round-trip budget at the relay), call the API with the token.
 */
afterAll(closeSql);

const REDIRECT_URI = 'http://127.0.0.1:53682/callback';
const insecure = { [oauth.allowInsecureRequests]: true } as const;

/** A same-origin browser request: the jar's cookies, Origin on POSTs, no redirects followed. */
async function browse(jar: CookieJar, url: string, form?: Record<string, string>): Promise<Response> {
  const headers: Record<string, string> = {};
  const cookie = jar.header();
  if (cookie) headers.cookie = cookie;
  let body: string | undefined;
  if (form) {
    headers.origin = edge.url;
    headers['content-type'] = 'application/x-www-form-urlencoded';
    body = new URLSearchParams(form).toString();
  }
  const response = await fetch(new URL(url, edge.url), {
    method: form ? 'POST' : 'GET',
    headers,
    redirect: 'manual',
    ...(body === undefined ? {} : { body }),
  });
  jar.store(response);
  return response;
}

describe('an OAuth client against the worker', () => {
  it('is authorized with PKCE, exchanges its code within budget and calls the API', async () => {
    const issuer = new URL(edge.url);
    const as = await oauth.processDiscoveryResponse(
      issuer,
      await oauth.discoveryRequest(issuer, { ...insecure, algorithm: 'oauth2' }),
    );
    const registered = await oauth.processDynamicClientRegistrationResponse(
      await oauth.dynamicClientRegistrationRequest(
        as,
        { client_name: 'Edge App', redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: 'none' },
        insecure,
      ),
    );
    const client: oauth.Client = { client_id: registered.client_id, token_endpoint_auth_method: 'none' };

    // The member signs in to the console with a one-time link (minted on the database, as the admin CLI does).
    const jar = new CookieJar();
    const link = await createSignInLink(database(), edge.url, DEMO_ADMIN_EMAIL, new Date());
    const linkPage = await browse(jar, link.url);
    expect(linkPage.status).toBe(200);
    const signedIn = await browse(
      jar,
      '/console/sign-in/link',
      formFields(await linkPage.text(), '/console/sign-in/link'),
    );
    expect(signedIn.status).toBe(303);

    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const authorizationUrl = new URL(as.authorization_endpoint as string);
    authorizationUrl.search = new URLSearchParams({
      response_type: 'code',
      client_id: client.client_id,
      redirect_uri: REDIRECT_URI,
      scope: 'data:read conversations:read',
      state,
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      resource: `${edge.url}/api/platform/v1`,
    }).toString();
    const consent = await browse(jar, authorizationUrl.toString());
    const html = await consent.text();
    expect(consent.status, html.slice(0, 300)).toBe(200);
    const fields = formFields(html, '/api/platform/v1/oauth/authorize');
    fields.workspace_id ??= edge.workspaceId;
    const approved = await browse(jar, '/api/platform/v1/oauth/authorize', { ...fields, decision: 'approve' });
    expect(approved.status).toBe(303);
    const callback = new URL(approved.headers.get('location') as string);
    const params = oauth.validateAuthResponse(as, client, callback, state);

    const { result: tokenResponse, total } = await measure(() =>
      oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, REDIRECT_URI, verifier, insecure),
    );
    const tokens = await oauth.processAuthorizationCodeResponse(as, client, tokenResponse);
    expect(tokens.scope).toBe('data:read conversations:read');
    expect(tokens.refresh_token).toMatch(/^cipr_/);
    expect(total.relay.connectionsOpened, JSON.stringify(total)).toBeLessThanOrEqual(BUDGETS.codeExchange.connections);
    expect(total.relay.queries, JSON.stringify(total)).toBeLessThanOrEqual(BUDGETS.codeExchange.queries);

    // The code is spent and the grant active in the database (independent SQL), and the token works on the API.
    const codes = await sql<{ redeemed: boolean; active: boolean }>(
      `select c.redeemed_at is not null as redeemed, g.activated_at is not null and g.revoked_at is null as active
         from oauth_authorization_codes c join oauth_grants g on g.id = c.grant_id where g.client_id = $1`,
      [client.client_id],
    );
    expect(codes).toEqual([{ redeemed: true, active: true }]);
    const status = await api('GET', '/setup/status', { bearer: tokens.access_token });
    expect(status.status, status.text).toBe(200);
    expect(status.body.data).toMatchObject({ auth_method: 'oauth', workspace: { id: edge.workspaceId } });
  });
});
