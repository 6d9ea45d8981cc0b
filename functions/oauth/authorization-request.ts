import type { Database } from '../../platform/db/port.js';
import type { Scope } from '../identity/scopes.js';
import { findClient, type OAuthClient } from './clients.js';
import { OAuthError } from './oauth-error.js';
import { resolveResource, type ProtectedResources } from './resources.js';
import { parseScopeParameter } from './scope-policy.js';

/** The parameters of an authorization request (RFC 6749 4.1.1, RFC 7636, RFC 8707), as sent. */
export const AUTHORIZATION_PARAMETERS = [
  'response_type',
  'client_id',
  'redirect_uri',
  'scope',
  'state',
  'code_challenge',
  'code_challenge_method',
  'resource',
] as const;
export type AuthorizationParameters = Partial<Record<(typeof AUTHORIZATION_PARAMETERS)[number], string>>;

const PKCE_CHALLENGE = /^[A-Za-z0-9\-_]{43}$/;

export interface AuthorizationRequest {
  client: OAuthClient;
  redirectUri: string;
  state: string | undefined;
  codeChallenge: string;
  scopes: Scope[];
  resource: string;
  /** The request's parameters, to carry through the consent form unchanged. */
  parameters: AuthorizationParameters;
}

/**
 * An authorization request this server refuses, shown to the person as an error page and never sent
 * back to the client's redirect URI. Before a signed-in member has approved, a redirect would make
 * this server an open redirector (RFC 6749 4.1.2.1, RFC 9700 4.11.2): anyone who registers a client
 * could send a browser through this trusted origin to their own URI with a deliberately invalid
 * request. `code` is the OAuth error the request earned, when its client and redirect URI were known.
 */
export class RefusedAuthorizationRequest extends Error {
  override name = 'RefusedAuthorizationRequest';
  constructor(
    message: string,
    readonly code?: OAuthError['code'],
  ) {
    super(message);
  }
}

export function parametersFrom(source: (name: string) => string | undefined): AuthorizationParameters {
  const parameters: AuthorizationParameters = {};
  for (const name of AUTHORIZATION_PARAMETERS) {
    const value = source(name);
    if (value !== undefined) parameters[name] = value;
  }
  return parameters;
}

/**
 * Validate an authorization request: client and redirect URI first, then the rest. Every problem is
 * a RefusedAuthorizationRequest (an error page); only what a signed-in member decides on the
 * consent page goes back to the client's redirect URI.
 */
export async function validateAuthorizationRequest(
  db: Database,
  issuer: string,
  resources: ProtectedResources,
  parameters: AuthorizationParameters,
): Promise<AuthorizationRequest> {
  const clientId = parameters.client_id;
  if (!clientId) throw new RefusedAuthorizationRequest('The request names no client (client_id is missing).');
  const client = await findClient(db, issuer, clientId);
  if (!client) throw new RefusedAuthorizationRequest('The application is not registered with this service.');
  let redirectUri = parameters.redirect_uri;
  if (redirectUri === undefined) {
    // OAuth 2.1 lets a client with exactly one registered redirect URI omit it.
    if (client.redirectUris.length !== 1)
      throw new RefusedAuthorizationRequest('redirect_uri is missing and the application registered more than one.');
    redirectUri = client.redirectUris[0] as string;
  } else if (!client.redirectUris.includes(redirectUri)) {
    throw new RefusedAuthorizationRequest('redirect_uri is not one the application registered.');
  }
  const state = parameters.state;
  const fail = (error: OAuthError): never => {
    throw new RefusedAuthorizationRequest(error.description, error.code);
  };

  if (parameters.response_type !== 'code')
    fail(new OAuthError('unsupported_response_type', 'response_type must be "code".'));
  if (!client.grantTypes.includes('authorization_code'))
    fail(new OAuthError('unauthorized_client', 'The application may not use the authorization code flow.'));
  const challenge = parameters.code_challenge;
  if (!challenge) fail(new OAuthError('invalid_request', 'code_challenge is required (PKCE with S256).'));
  if (parameters.code_challenge_method !== 'S256')
    fail(new OAuthError('invalid_request', 'code_challenge_method must be S256.'));
  if (!PKCE_CHALLENGE.test(challenge as string))
    fail(new OAuthError('invalid_request', 'code_challenge must be a base64url SHA-256 digest (43 characters).'));
  let scopes: Scope[] = [];
  let resource = resources.api;
  try {
    scopes = parseScopeParameter(parameters.scope);
    resource = resolveResource(parameters.resource, resources);
  } catch (e) {
    if (e instanceof OAuthError) fail(e);
    throw e;
  }
  return { client, redirectUri, state, codeChallenge: challenge as string, scopes, resource, parameters };
}

/**
 * Whether the query of an authorization request is well formed on its face: each parameter at most
 * once, `response_type=code`, a client, an S256 PKCE challenge. The console's sign-in returns only
 * to such a request (web/browser.ts safeReturnTo), so a sign-in link never leads into a request the
 * authorization endpoint would refuse; the endpoint still validates it in full.
 */
export function isWellFormedAuthorizationQuery(query: URLSearchParams): boolean {
  for (const name of new Set(query.keys())) if (query.getAll(name).length > 1) return false;
  return (
    query.get('response_type') === 'code' &&
    Boolean(query.get('client_id')) &&
    query.get('code_challenge_method') === 'S256' &&
    PKCE_CHALLENGE.test(query.get('code_challenge') ?? '')
  );
}

/** The URL the browser goes back to: the code or the error, with `state` and `iss` (RFC 9207). */
export function authorizationResponseUrl(
  redirectUri: string,
  issuer: string,
  state: string | undefined,
  result: { code: string } | OAuthError,
): string {
  const url = new URL(redirectUri);
  if (result instanceof OAuthError) {
    url.searchParams.set('error', result.code);
    url.searchParams.set('error_description', result.description);
  } else {
    url.searchParams.set('code', result.code);
  }
  if (state !== undefined) url.searchParams.set('state', state);
  url.searchParams.set('iss', issuer);
  return url.toString();
}
