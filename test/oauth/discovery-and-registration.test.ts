import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPES } from '../../functions/identity/scopes.js';
import { createHarness, type Harness } from '../support/harness.js';

let h: Harness;
const base = () => h.services.config.publicUrl;

beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => h.close());

const register = (body: unknown, ip = '198.51.100.1') =>
  h.fetch('/api/platform/v1/oauth/register', {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': ip },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });

describe('discovery', () => {
  it('serves RFC 8414 authorization server metadata with the agent_auth block', async () => {
    const res = await h.fetch('/.well-known/oauth-authorization-server');
    expect(res.status).toBe(200);
    const meta = await res.json();
    expect(meta).toMatchObject({
      issuer: base(),
      authorization_endpoint: `${base()}/api/platform/v1/oauth/authorize`,
      token_endpoint: `${base()}/api/platform/v1/oauth/token`,
      registration_endpoint: `${base()}/api/platform/v1/oauth/register`,
      revocation_endpoint: `${base()}/api/platform/v1/oauth/revoke`,
      response_types_supported: ['code'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['none', 'client_secret_basic', 'client_secret_post'],
      service_documentation: `${base()}/api/platform/v1/openapi.json`,
    });
    // The spec's OAuth list first, then the scopes operations use: every scope the service knows.
    expect(meta.scopes_supported).toEqual([...SCOPES]);
    expect(meta.scopes_supported.slice(0, 3)).toEqual(['artifacts:read', 'artifacts:write', 'artifacts:delete']);
    expect(meta.agent_auth.api_key).toMatchObject({
      headers: ['X-API-Key: <key>', 'Authorization: Bearer <key>'],
      prefix: 'cip_',
      default_bundle: 'customer_agent',
    });
    expect(meta.agent_auth.api_key.bundles.map((b: { id: string }) => b.id)).toEqual([
      'read_only',
      'customer_agent',
      'internal_agent',
      'full_admin',
    ]);
    expect(meta.agent_auth.mcp).toMatchObject({ url: `${base()}/api/platform/v1/mcp`, transport: 'streamable-http' });
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('serves RFC 9728 protected resource metadata for the API and for the MCP endpoint', async () => {
    for (const [path, resource] of [
      ['/.well-known/oauth-protected-resource', `${base()}/api/platform/v1`],
      ['/.well-known/oauth-protected-resource/api/platform/v1', `${base()}/api/platform/v1`],
      ['/.well-known/oauth-protected-resource/api/platform/v1/mcp', `${base()}/api/platform/v1/mcp`],
    ] as const) {
      const res = await h.fetch(path);
      expect(res.status, path).toBe(200);
      expect(await res.json()).toMatchObject({
        resource,
        authorization_servers: [base()],
        bearer_methods_supported: ['header'],
      });
    }
  });

  it('a 401 from the MCP endpoint says where the resource metadata is (WWW-Authenticate)', async () => {
    const res = await h.fetch('/api/platform/v1/mcp', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${base()}/.well-known/oauth-protected-resource/api/platform/v1/mcp"`,
    );
    expect((await res.json()).error.code).toBe('unauthenticated');

    const bad = await h.fetch('/api/platform/v1/setup/status', { headers: { authorization: 'Bearer not-a-token' } });
    expect(bad.status).toBe(401);
    expect(bad.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${base()}/.well-known/oauth-protected-resource/api/platform/v1", error="invalid_token"`,
    );
  });

  it('keeps the OpenAPI document and MCP free of console-only operations', async () => {
    const doc = await (await h.fetch('/api/platform/v1/openapi.json')).json();
    expect(Object.keys(doc.paths).filter((p) => p.startsWith('/console'))).toEqual([]);
  });
});

describe('dynamic client registration (RFC 7591)', () => {
  it('registers a public client without a secret and a confidential client with one', async () => {
    const pub = await register({
      client_name: 'Public App',
      redirect_uris: ['http://127.0.0.1:8123/cb', 'https://app.example/cb'],
      token_endpoint_auth_method: 'none',
    });
    expect(pub.status).toBe(201);
    expect(pub.headers.get('cache-control')).toBe('no-store');
    const body = await pub.json();
    expect(body).toMatchObject({
      client_id: expect.stringMatching(/^cipc_/),
      client_name: 'Public App',
      redirect_uris: ['http://127.0.0.1:8123/cb', 'https://app.example/cb'],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      client_id_issued_at: expect.any(Number),
    });
    expect(body).not.toHaveProperty('client_secret');

    const confidential = await register(
      { client_name: 'Server App', redirect_uris: ['https://server.example/cb'] },
      '198.51.100.2',
    );
    const conf = await confidential.json();
    expect(conf).toMatchObject({
      token_endpoint_auth_method: 'client_secret_basic',
      client_secret: expect.stringMatching(/^cips_/),
      client_secret_expires_at: 0,
    });
  });

  it('refuses bad redirect URIs with invalid_redirect_uri and bad metadata with invalid_client_metadata', async () => {
    const cases: [unknown, string, RegExp][] = [
      [{ redirect_uris: ['http://app.example/cb'] }, 'invalid_redirect_uri', /https/],
      [{ redirect_uris: ['https://app.example/cb#frag'] }, 'invalid_redirect_uri', /fragment/],
      [{ redirect_uris: ['https://*.example/cb'] }, 'invalid_redirect_uri', /wildcard/],
      [{ redirect_uris: ['cursor://callback'] }, 'invalid_redirect_uri', /scheme/],
      [{ redirect_uris: ['/relative'] }, 'invalid_redirect_uri', /absolute/],
      [{ redirect_uris: ['https://user:pw@app.example/cb'] }, 'invalid_redirect_uri', /credentials/],
      [{ redirect_uris: [] }, 'invalid_redirect_uri', /redirect_uris/],
      [{ client_name: 'x' }, 'invalid_redirect_uri', /redirect_uris/],
      [
        { redirect_uris: ['https://a.example/cb'], grant_types: ['client_credentials'] },
        'invalid_client_metadata',
        /client_credentials/,
      ],
      [
        { redirect_uris: ['https://a.example/cb'], grant_types: ['refresh_token'] },
        'invalid_client_metadata',
        /authorization_code/,
      ],
      [{ redirect_uris: ['https://a.example/cb'], response_types: ['token'] }, 'invalid_client_metadata', /code/],
      [
        { redirect_uris: ['https://a.example/cb'], token_endpoint_auth_method: 'private_key_jwt' },
        'invalid_client_metadata',
        /private_key_jwt/,
      ],
      [{ redirect_uris: ['https://a.example/cb'], client_name: '' }, 'invalid_client_metadata', /client_name/],
      [
        { redirect_uris: ['https://a.example/cb'], scope: 'data:read everything:all' },
        'invalid_client_metadata',
        /everything:all/,
      ],
      ['{not json', 'invalid_client_metadata', /JSON/],
    ];
    let ip = 10;
    for (const [body, code, description] of cases) {
      const res = await register(body, `203.0.113.${ip++}`);
      const json = await res.json();
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(json.error, JSON.stringify(body)).toBe(code);
      expect(json.error_description, JSON.stringify(body)).toMatch(description);
    }
  });

  it('allows 5 registrations per minute per address, then 429 with Retry-After', async () => {
    const ip = '192.0.2.77';
    for (let i = 0; i < 5; i++)
      expect((await register({ redirect_uris: ['https://a.example/cb'] }, ip)).status).toBe(201);
    const limited = await register({ redirect_uris: ['https://a.example/cb'] }, ip);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await limited.json()).toMatchObject({ error: 'rate_limited', retry_after_seconds: expect.any(Number) });
    // Another address is not affected.
    expect((await register({ redirect_uris: ['https://a.example/cb'] }, '192.0.2.78')).status).toBe(201);
  });
});
