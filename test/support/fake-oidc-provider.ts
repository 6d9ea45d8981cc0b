import { Hono } from 'hono';
import { exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';
import type { IdentityProviderFetch } from '../../functions/console/oidc.js';
import { sha256Base64Url } from '../../platform/crypto.js';
import { randomBase62 } from '../../platform/ids.js';

/**
 * A local OpenID Connect provider for tests: discovery, JWKS, an authorize endpoint that signs in
 * whoever the test says, and a token endpoint that checks the code, the client and PKCE before
 * returning an RS256 ID token. It runs in process (the service reaches it through a fetch the test
 * injects), so nothing touches the network.
 */
export interface FakeOidcProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  fetch: IdentityProviderFetch;
  /** A browser opening a URL at the provider (its authorize endpoint): the response, redirects not followed. */
  visit(url: string): Promise<Response>;
  /** Who the next authorization signs in as. */
  signInAs(claims: { email: string; email_verified?: boolean }): void;
  /** Requests the provider received, for assertions. */
  tokenRequests: URLSearchParams[];
}

export async function startFakeOidcProvider(issuer = 'http://idp.test'): Promise<FakeOidcProvider> {
  const { publicKey, privateKey } = await generateKeyPair('RS256');
  const jwk: JWK = { ...(await exportJWK(publicKey)), kid: 'test-key', alg: 'RS256', use: 'sig' };
  const clientId = 'console-client';
  const clientSecret = 'console-client-secret';
  let nextClaims: { email: string; email_verified?: boolean } = { email: 'nobody@example.com' };
  const codes = new Map<string, { challenge: string; nonce: string; redirectUri: string; claims: typeof nextClaims }>();
  const tokenRequests: URLSearchParams[] = [];

  const app = new Hono();
  app.get('/.well-known/openid-configuration', (c) =>
    c.json({
      issuer,
      authorization_endpoint: `${issuer}/authorize`,
      token_endpoint: `${issuer}/token`,
      jwks_uri: `${issuer}/jwks`,
      response_types_supported: ['code'],
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: ['RS256'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['client_secret_basic'],
    }),
  );
  app.get('/jwks', (c) => c.json({ keys: [jwk] }));
  app.get('/authorize', (c) => {
    const q = c.req.query();
    if (
      q.client_id !== clientId ||
      q.response_type !== 'code' ||
      q.code_challenge_method !== 'S256' ||
      !q.code_challenge ||
      !q.nonce ||
      !q.redirect_uri
    ) {
      return c.text('bad authorization request', 400);
    }
    const code = randomBase62(32);
    codes.set(code, { challenge: q.code_challenge, nonce: q.nonce, redirectUri: q.redirect_uri, claims: nextClaims });
    const back = new URL(q.redirect_uri);
    back.searchParams.set('code', code);
    if (q.state) back.searchParams.set('state', q.state);
    back.searchParams.set('iss', issuer);
    return c.redirect(back.toString(), 302);
  });
  app.post('/token', async (c) => {
    const form = new URLSearchParams(await c.req.text());
    tokenRequests.push(form);
    const basic = c.req.header('authorization')?.replace(/^Basic /, '') ?? '';
    const [id, secret] = atob(basic).split(':').map(decodeURIComponent);
    if (id !== clientId || secret !== clientSecret) return c.json({ error: 'invalid_client' }, 401);
    const entry = codes.get(form.get('code') ?? '');
    codes.delete(form.get('code') ?? '');
    if (!entry || entry.redirectUri !== form.get('redirect_uri')) return c.json({ error: 'invalid_grant' }, 400);
    if ((await sha256Base64Url(form.get('code_verifier') ?? '')) !== entry.challenge)
      return c.json({ error: 'invalid_grant', error_description: 'pkce' }, 400);
    const idToken = await new SignJWT({
      email: entry.claims.email,
      email_verified: entry.claims.email_verified ?? true,
      nonce: entry.nonce,
    })
      .setProtectedHeader({ alg: 'RS256', kid: 'test-key' })
      .setIssuer(issuer)
      .setAudience(clientId)
      .setSubject(`sub-${entry.claims.email}`)
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(privateKey);
    return c.json({ access_token: randomBase62(32), token_type: 'Bearer', expires_in: 300, id_token: idToken });
  });

  return {
    issuer,
    clientId,
    clientSecret,
    fetch: async (url, init) => app.fetch(new Request(url, init as RequestInit)),
    visit: async (url) => app.fetch(new Request(url)),
    signInAs(claims) {
      nextClaims = claims;
    },
    tokenRequests,
  };
}
