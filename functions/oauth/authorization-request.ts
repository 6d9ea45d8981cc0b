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
 * A request that must not redirect: the client or redirect URI cannot be trusted, so sending the
 * browser anywhere would make this server an open redirector (RFC 6749 4.1.2.1). Shown as a page.
 */
export class UntrustedAuthorizationRequest extends Error {
  override name = 'UntrustedAuthorizationRequest';
}

/** An error to send back to the client's redirect URI, with `state` and `iss`. */
export class RedirectableAuthorizationError extends Error {
  override name = 'RedirectableAuthorizationError';
  constructor(
    readonly error: OAuthError,
    readonly redirectUri: string,
    readonly state: string | undefined,
  ) {
    super(error.description);
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
 * Validate an authorization request. Client and redirect URI first: until both are known good,
 * every problem is an error page. After that, problems go back to the client as OAuth errors.
 */
export async function validateAuthorizationRequest(
  db: Database,
  issuer: string,
  resources: ProtectedResources,
  parameters: AuthorizationParameters,
): Promise<AuthorizationRequest> {
  const clientId = parameters.client_id;
  if (!clientId) throw new UntrustedAuthorizationRequest('The request names no client (client_id is missing).');
  const client = await findClient(db, issuer, clientId);
  if (!client) throw new UntrustedAuthorizationRequest('The application is not registered with this service.');
  let redirectUri = parameters.redirect_uri;
  if (redirectUri === undefined) {
    // OAuth 2.1 lets a client with exactly one registered redirect URI omit it.
    if (client.redirectUris.length !== 1)
      throw new UntrustedAuthorizationRequest('redirect_uri is missing and the application registered more than one.');
    redirectUri = client.redirectUris[0] as string;
  } else if (!client.redirectUris.includes(redirectUri)) {
    throw new UntrustedAuthorizationRequest('redirect_uri is not one the application registered.');
  }
  const state = parameters.state;
  const fail = (error: OAuthError): never => {
    throw new RedirectableAuthorizationError(error, redirectUri, state);
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
