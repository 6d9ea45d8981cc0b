import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness, type SeededWorkspace } from '../support/harness.js';
import { answerConsent, signInWithLink, type CookieJar } from '../support/console-session.js';

/**
 * The whole authorization-code dance with a well-kept OAuth client library (oauth4webapi), as a
 * third-party application would run it: discovery, registration, authorize with PKCE, consent,
 * token, an API call, refresh, revocation.
 */
let h: Harness;
let ws: SeededWorkspace;
let jar: CookieJar;
const REDIRECT_URI = 'http://127.0.0.1:53682/callback';

beforeAll(async () => {
  h = await createHarness();
  ws = await h.seedWorkspace('Dance Workspace');
  jar = await signInWithLink(h, ws.editor.email);
});
afterAll(async () => h.close());

const inProcess = {
  [oauth.customFetch]: (url: string, init: RequestInit) => h.fetch(new Request(url, init)),
  [oauth.allowInsecureRequests]: true,
} as const;

async function discover(): Promise<oauth.AuthorizationServer> {
  const issuer = new URL(h.services.config.publicUrl);
  return oauth.processDiscoveryResponse(
    issuer,
    await oauth.discoveryRequest(issuer, { ...inProcess, algorithm: 'oauth2' }),
  );
}

describe('an OAuth client (oauth4webapi) against the authorization server', () => {
  it('registers, is authorized with PKCE, calls the API, refreshes and revokes', async () => {
    const as = await discover();
    expect(as.code_challenge_methods_supported).toEqual(['S256']);

    const registered = await oauth.processDynamicClientRegistrationResponse(
      await oauth.dynamicClientRegistrationRequest(
        as,
        { client_name: 'Dance App', redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: 'none' },
        inProcess,
      ),
    );
    const client: oauth.Client = { client_id: registered.client_id, token_endpoint_auth_method: 'none' };
    expect(registered.client_secret).toBeUndefined();

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
      resource: `${h.services.config.publicUrl}/api/platform/v1`,
    }).toString();

    const callback = await answerConsent(h, jar, authorizationUrl.toString(), 'approve');
    expect(callback.origin + callback.pathname).toBe(REDIRECT_URI);
    const params = oauth.validateAuthResponse(as, client, callback, state);

    const tokens = await oauth.processAuthorizationCodeResponse(
      as,
      client,
      await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, REDIRECT_URI, verifier, inProcess),
    );
    expect(tokens.token_type).toBe('bearer');
    expect(tokens.scope).toBe('data:read conversations:read');
    expect(tokens.refresh_token).toMatch(/^cipr_/);

    const status = await h.request('GET', '/setup/status', { bearer: tokens.access_token });
    expect(status.status, status.text).toBe(200);
    expect(status.body.data).toMatchObject({
      auth_method: 'oauth',
      workspace: { id: ws.id },
      caller: { email: ws.editor.email, scopes: ['conversations:read', 'data:read'] },
    });

    const refreshed = await oauth.processRefreshTokenResponse(
      as,
      client,
      await oauth.refreshTokenGrantRequest(as, client, oauth.None(), tokens.refresh_token as string, inProcess),
    );
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
    expect((await h.request('GET', '/setup/status', { bearer: refreshed.access_token })).status).toBe(200);

    await oauth.processRevocationResponse(
      await oauth.revocationRequest(as, client, oauth.None(), refreshed.refresh_token as string, inProcess),
    );
    // Revoking the refresh token revokes the grant: every access token from it stops at once.
    for (const token of [tokens.access_token, refreshed.access_token]) {
      const res = await h.request('GET', '/setup/status', { bearer: token });
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('invalid_token');
    }
    const again = await oauth.refreshTokenGrantRequest(
      as,
      client,
      oauth.None(),
      refreshed.refresh_token as string,
      inProcess,
    );
    expect(again.status).toBe(400);
    expect(await again.json()).toMatchObject({ error: 'invalid_grant' });
  });
});
