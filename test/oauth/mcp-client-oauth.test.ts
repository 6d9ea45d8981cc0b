import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness, type SeededWorkspace } from '../support/harness.js';
import { answerConsent, signInWithLink, type CookieJar } from '../support/console-session.js';

/**
 * The official MCP SDK client's own OAuth flow against /api/platform/v1/mcp: it is refused, reads
 * WWW-Authenticate, discovers the protected resource and the authorization server, registers,
 * sends the member to consent, exchanges the code and lists tools. Nothing here hand-builds OAuth.
 */
let h: Harness;
let ws: SeededWorkspace;
let jar: CookieJar;

beforeAll(async () => {
  h = await createHarness();
  ws = await h.seedWorkspace('MCP OAuth Workspace');
  jar = await signInWithLink(h, ws.viewer.email);
});
afterAll(async () => h.close());

/** The SDK's provider interface, kept in memory the way a desktop client keeps it on disk. */
class MemoryProvider implements OAuthClientProvider {
  info: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = '';
  authorizationUrl: URL | undefined;
  readonly redirectUrl = 'http://127.0.0.1:33418/oauth/callback';
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'Desktop Assistant',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  clientInformation() {
    return this.info;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.info = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

const mcpUrl = () => new URL(`${h.services.config.publicUrl}/api/platform/v1/mcp`);
const transportFor = (provider: OAuthClientProvider) =>
  new StreamableHTTPClientTransport(mcpUrl(), {
    authProvider: provider,
    fetch: (url, init) => h.fetch(new Request(url, init)),
  });

describe('the MCP SDK client signing in by itself', () => {
  it('discovers, registers, authorizes with consent and lists tools', async () => {
    const provider = new MemoryProvider();
    const first = new Client({ name: 'desktop-assistant', version: '1.0.0' });
    await expect(first.connect(transportFor(provider))).rejects.toBeInstanceOf(UnauthorizedError);
    expect(provider.info?.client_id).toMatch(/^cipc_/);
    const authorizationUrl = provider.authorizationUrl as URL;
    expect(authorizationUrl.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorizationUrl.searchParams.get('resource')).toBe(mcpUrl().toString());

    const callback = await answerConsent(h, jar, authorizationUrl.toString(), 'approve');
    const code = callback.searchParams.get('code') as string;
    expect(code).toBeTruthy();

    const transport = transportFor(provider);
    await transport.finishAuth(code);
    const token = provider.saved?.access_token as string;
    // Bound to the MCP endpoint (RFC 8707): usable there, refused by the REST API.
    expect(decodeJwt(token).aud).toBe(mcpUrl().toString());
    const client = new Client({ name: 'desktop-assistant', version: '1.0.0' });
    await client.connect(transport);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain('search');
    await client.close();

    const rest = await h.request('GET', '/setup/status', { bearer: token });
    expect(rest.status).toBe(401);
    expect(rest.body.error.code).toBe('invalid_token');
  });
});
