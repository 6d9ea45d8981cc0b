import { and, eq, isNull, or } from 'drizzle-orm';
import { z } from 'zod';
import { oauthClients } from '../../schema/index.js';
import type { Database } from '../../platform/db/port.js';
import { sha256Hex, timingSafeEqual } from '../../platform/crypto.js';
import { randomBase62 } from '../../platform/ids.js';
import { OAuthError } from './oauth-error.js';
import { redirectUriProblem } from './redirect-uris.js';
import { parseScopeParameter } from './scope-policy.js';

export const GRANT_TYPES = ['authorization_code', 'refresh_token'] as const;
export const TOKEN_ENDPOINT_AUTH_METHODS = ['none', 'client_secret_basic', 'client_secret_post'] as const;
export type TokenEndpointAuthMethod = (typeof TOKEN_ENDPOINT_AUTH_METHODS)[number];

export type OAuthClient = typeof oauthClients.$inferSelect;

/**
 * RFC 7591 client metadata, as far as this server acts on it. Fields it does not know are ignored
 * (RFC 7591 2), never stored; the response echoes only what was registered.
 */
const RegistrationSchema = z.object({
  redirect_uris: z.array(z.string()).min(1).max(10),
  client_name: z
    .string()
    .trim()
    .min(1)
    .max(120)
    .refine((v) => !/[\u0000-\u001f\u007f]/.test(v), 'must not contain control characters')
    .optional(),
  grant_types: z.array(z.string()).min(1).optional(),
  response_types: z.array(z.string()).min(1).optional(),
  token_endpoint_auth_method: z.string().optional(),
  scope: z.string().max(2000).optional(),
});

export interface RegisteredClient {
  client_id: string;
  client_secret?: string;
  client_id_issued_at: number;
  client_secret_expires_at?: 0;
  client_name: string;
  redirect_uris: string[];
  grant_types: string[];
  response_types: ['code'];
  token_endpoint_auth_method: TokenEndpointAuthMethod;
}

/** Validate metadata and store the client for this issuer. Public clients (`none`) get no secret. */
export async function registerClient(
  db: Database,
  issuer: string,
  metadata: unknown,
  now: Date,
): Promise<RegisteredClient> {
  const parsed = RegistrationSchema.safeParse(metadata);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue?.path.join('.') || '(body)';
    const code = issue?.path[0] === 'redirect_uris' ? 'invalid_redirect_uri' : 'invalid_client_metadata';
    throw new OAuthError(code, `${field}: ${issue?.message ?? 'invalid'}.`);
  }
  const m = parsed.data;
  m.redirect_uris.forEach((uri, i) => {
    const problem = redirectUriProblem(uri);
    if (problem) throw new OAuthError('invalid_redirect_uri', `redirect_uris[${i}] ${problem}.`);
  });
  const grantTypes = [...new Set(m.grant_types ?? ['authorization_code', 'refresh_token'])];
  const unsupportedGrant = grantTypes.find((g) => !(GRANT_TYPES as readonly string[]).includes(g));
  if (unsupportedGrant)
    throw new OAuthError(
      'invalid_client_metadata',
      `grant_types: "${unsupportedGrant}" is not supported; allowed: ${GRANT_TYPES.join(', ')}.`,
    );
  if (!grantTypes.includes('authorization_code'))
    throw new OAuthError('invalid_client_metadata', 'grant_types must include authorization_code.');
  const responseTypes = [...new Set(m.response_types ?? ['code'])];
  if (responseTypes.some((r) => r !== 'code'))
    throw new OAuthError('invalid_client_metadata', 'response_types: only "code" is supported.');
  const authMethod = m.token_endpoint_auth_method ?? 'client_secret_basic';
  if (!(TOKEN_ENDPOINT_AUTH_METHODS as readonly string[]).includes(authMethod)) {
    throw new OAuthError(
      'invalid_client_metadata',
      `token_endpoint_auth_method: "${authMethod}" is not supported; allowed: ${TOKEN_ENDPOINT_AUTH_METHODS.join(', ')}.`,
    );
  }
  if (m.scope !== undefined) {
    try {
      parseScopeParameter(m.scope);
    } catch (e) {
      if (e instanceof OAuthError) throw new OAuthError('invalid_client_metadata', `scope: ${e.description}`);
      throw e;
    }
  }
  const clientId = `cipc_${randomBase62(24)}`;
  const secret = authMethod === 'none' ? undefined : `cips_${randomBase62(48)}`;
  const name = m.client_name ?? new URL(m.redirect_uris[0] as string).host;
  await db.insert(oauthClients).values({
    id: clientId,
    issuer,
    name,
    redirectUris: m.redirect_uris,
    grantTypes,
    tokenEndpointAuthMethod: authMethod,
    secretHash: secret ? await sha256Hex(secret) : null,
    createdAt: now,
  });
  return {
    client_id: clientId,
    ...(secret ? { client_secret: secret, client_secret_expires_at: 0 as const } : {}),
    client_id_issued_at: Math.floor(now.getTime() / 1000),
    client_name: name,
    redirect_uris: m.redirect_uris,
    grant_types: grantTypes,
    response_types: ['code'],
    token_endpoint_auth_method: authMethod as TokenEndpointAuthMethod,
  };
}

/** A client registered at this issuer (or by an operator, for any issuer). */
export async function findClient(db: Database, issuer: string, clientId: string): Promise<OAuthClient | null> {
  if (clientId.length > 200) return null;
  const [row] = await db
    .select()
    .from(oauthClients)
    .where(and(eq(oauthClients.id, clientId), or(eq(oauthClients.issuer, issuer), isNull(oauthClients.issuer))));
  return row ?? null;
}

/**
 * Authenticate the client at the token and revocation endpoints by the method it registered:
 * HTTP Basic, a form secret, or (public clients) its client_id alone, PKCE carrying the proof.
 */
export async function authenticateClient(
  db: Database,
  issuer: string,
  form: URLSearchParams,
  authorizationHeader: string | undefined,
): Promise<OAuthClient> {
  let clientId = form.get('client_id') ?? undefined;
  let secret = form.get('client_secret') ?? undefined;
  let method: TokenEndpointAuthMethod = secret ? 'client_secret_post' : 'none';
  const basic = authorizationHeader && /^Basic\s+(\S+)$/i.exec(authorizationHeader)?.[1];
  if (basic) {
    const decoded = decodeBasic(basic);
    if (!decoded)
      throw new OAuthError('invalid_client', 'The Basic authorization header is malformed.', 401, {
        'WWW-Authenticate': 'Basic realm="oauth"',
      });
    if (clientId && clientId !== decoded.id)
      throw new OAuthError('invalid_request', 'client_id in the body differs from the authenticated client.');
    if (secret)
      throw new OAuthError(
        'invalid_request',
        'Use one client authentication method, not both Basic and client_secret.',
      );
    clientId = decoded.id;
    secret = decoded.secret;
    method = 'client_secret_basic';
  }
  if (!clientId)
    throw new OAuthError(
      'invalid_client',
      'No client authentication: send client_id (public clients) or client credentials.',
    );
  const client = await findClient(db, issuer, clientId);
  const failure = new OAuthError(
    'invalid_client',
    'Client authentication failed.',
    401,
    basic ? { 'WWW-Authenticate': 'Basic realm="oauth"' } : {},
  );
  if (!client) throw failure;
  if (client.tokenEndpointAuthMethod === 'none') {
    if (method !== 'none') throw failure;
    return client;
  }
  if (method !== client.tokenEndpointAuthMethod || !secret || !client.secretHash) throw failure;
  if (!timingSafeEqual(await sha256Hex(secret), client.secretHash)) throw failure;
  return client;
}

/** RFC 6749 2.3.1: the id and secret are form-urlencoded before being joined and base64-encoded. */
function decodeBasic(encoded: string): { id: string; secret: string } | null {
  let text: string;
  try {
    text = atob(encoded);
  } catch {
    return null;
  }
  const colon = text.indexOf(':');
  if (colon < 0) return null;
  try {
    const decode = (s: string) => decodeURIComponent(s.replace(/\+/g, ' '));
    return { id: decode(text.slice(0, colon)), secret: decode(text.slice(colon + 1)) };
  } catch {
    return null;
  }
}
