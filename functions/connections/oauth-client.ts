import { z } from 'zod';
import type { AppConfig } from '../../platform/config.js';
import { errorForStatus, ProviderError, retryAfterOf, type ProviderFetch } from './provider-errors.js';

/**
 * The OAuth 2.0 authorization-code flow with PKCE (RFC 6749, RFC 7636) against a source's
 * authorization server, as a confidential client: the authorize URL the person is sent to, the
 * code exchange, and the refresh. Written against Salesforce's (login.salesforce.com
 * /services/oauth2/authorize and /token; the token answer carries the org's `instance_url` and no
 * `expires_in`) and Google's (accounts.google.com/o/oauth2/v2/auth, oauth2.googleapis.com/token;
 * `access_type=offline` and `prompt=consent` so a refresh token is issued) public references.
 * Token endpoint errors are `{error, error_description}`; `invalid_grant` means the grant is gone
 * (revoked, expired): that is an auth failure, the person has to connect again.
 */
export interface TokenSet {
  access_token: string;
  refresh_token: string | null;
  /** Epoch ms when the access token expires, or null when the provider does not say (Salesforce). */
  expires_at: number | null;
  /** Salesforce: the org's API host. */
  instance_url: string | null;
}

export const TokenSetSchema = z.object({
  access_token: z.string().min(1),
  refresh_token: z.string().nullable(),
  expires_at: z.number().nullable(),
  instance_url: z.string().nullable(),
});

const TokenAnswer = z.object({
  access_token: z.string().min(1),
  refresh_token: z.string().optional(),
  expires_in: z.coerce.number().optional(),
  instance_url: z.string().url().optional(),
});

/** A source's OAuth authorization server and this deployment's client (a connector's `oauth`). */
export interface OAuthSource {
  type: string;
  name: string;
  authorizeUrl(config: AppConfig, params: { state: string; challenge: string; redirectUri: string }): string;
  tokenUrl(config: AppConfig): string;
  clientId(config: AppConfig): string;
  clientSecret(config: AppConfig): string;
}

async function tokenRequest(
  source: OAuthSource,
  config: AppConfig,
  form: Record<string, string>,
  now: Date,
  fetchImpl?: ProviderFetch,
): Promise<TokenSet> {
  const doFetch = fetchImpl ?? ((url: string, init: RequestInit) => fetch(url, init));
  let response: Response;
  try {
    response = await doFetch(source.tokenUrl(config), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: new URLSearchParams({
        ...form,
        client_id: source.clientId(config),
        client_secret: source.clientSecret(config),
      }).toString(),
      signal: AbortSignal.timeout(30_000),
    });
  } catch {
    throw new ProviderError('transient', `${source.name}'s token endpoint could not be reached.`);
  }
  const text = await response.text();
  if (!response.ok) {
    let code: string | undefined;
    try {
      code = z.object({ error: z.string() }).parse(JSON.parse(text)).error;
    } catch {
      code = undefined;
    }
    if (code === 'invalid_grant' || code === 'invalid_client' || code === 'unauthorized_client') {
      throw new ProviderError('auth', `${source.name} refused the authorization (${code}); connect again.`);
    }
    throw errorForStatus(source.name, response.status, retryAfterOf(response.headers.get('retry-after'), now));
  }
  let answer: z.infer<typeof TokenAnswer>;
  try {
    answer = TokenAnswer.parse(JSON.parse(text));
  } catch {
    throw new ProviderError('unknown', `${source.name}'s token endpoint answered in an unexpected shape.`);
  }
  return {
    access_token: answer.access_token,
    refresh_token: answer.refresh_token ?? null,
    expires_at: answer.expires_in ? now.getTime() + answer.expires_in * 1000 : null,
    instance_url: answer.instance_url ?? null,
  };
}

export function exchangeCode(
  source: OAuthSource,
  config: AppConfig,
  p: { code: string; verifier: string; redirectUri: string },
  now: Date,
  fetchImpl?: ProviderFetch,
): Promise<TokenSet> {
  return tokenRequest(
    source,
    config,
    { grant_type: 'authorization_code', code: p.code, code_verifier: p.verifier, redirect_uri: p.redirectUri },
    now,
    fetchImpl,
  );
}

/** A new access token from the refresh token; the refresh token (and Salesforce's instance) carry over when not re-issued. */
export async function refreshTokens(
  source: OAuthSource,
  config: AppConfig,
  current: TokenSet,
  now: Date,
  fetchImpl?: ProviderFetch,
): Promise<TokenSet> {
  if (!current.refresh_token) throw new ProviderError('auth', `${source.name} issued no refresh token; connect again.`);
  const next = await tokenRequest(
    source,
    config,
    { grant_type: 'refresh_token', refresh_token: current.refresh_token },
    now,
    fetchImpl,
  );
  return {
    ...next,
    refresh_token: next.refresh_token ?? current.refresh_token,
    instance_url: next.instance_url ?? current.instance_url,
  };
}

/**
 * Calls an API with the access token, refreshing it once when it is expired or refused (401), and
 * reporting a refreshed set through `onRefresh` so the connection keeps it.
 */
export class OAuthSession {
  constructor(
    private tokens: TokenSet,
    private readonly options: {
      source: OAuthSource;
      config: AppConfig;
      now: () => Date;
      onRefresh(tokens: TokenSet): Promise<void>;
      fetch?: ProviderFetch;
    },
  ) {}

  get instanceUrl(): string | null {
    return this.tokens.instance_url;
  }

  async fetch(url: string, init: RequestInit = {}): Promise<Response> {
    const doFetch = this.options.fetch ?? ((u: string, i: RequestInit) => fetch(u, i));
    if (this.tokens.expires_at !== null && this.tokens.expires_at - 60_000 <= this.options.now().getTime())
      await this.#refresh();
    const send = () =>
      doFetch(url, {
        ...init,
        headers: {
          ...(init.headers as Record<string, string>),
          authorization: `Bearer ${this.tokens.access_token}`,
          accept: 'application/json',
        },
        signal: AbortSignal.timeout(30_000),
      });
    let response: Response;
    try {
      response = await send();
      if (response.status === 401) {
        await response.body?.cancel();
        await this.#refresh();
        response = await send();
      }
    } catch (error) {
      if (error instanceof ProviderError) throw error;
      throw new ProviderError(
        'transient',
        `${this.options.source.name} could not be reached; the page will be tried again.`,
      );
    }
    return response;
  }

  async #refresh(): Promise<void> {
    this.tokens = await refreshTokens(
      this.options.source,
      this.options.config,
      this.tokens,
      this.options.now(),
      this.options.fetch,
    );
    await this.options.onRefresh(this.tokens);
  }
}
