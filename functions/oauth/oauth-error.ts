/**
 * The OAuth endpoints (token, revocation, registration) answer in the RFCs' own error format,
 * `{error, error_description}` (RFC 6749 5.2, RFC 7009 2.2.1, RFC 7591 3.2.2), because OAuth client
 * libraries parse exactly that. Everything else in the service uses the `{error: {code, ...}}` envelope.
 */
export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'unsupported_response_type'
  | 'unsupported_token_type'
  | 'invalid_scope'
  | 'invalid_target'
  | 'access_denied'
  | 'invalid_redirect_uri'
  | 'invalid_client_metadata'
  | 'server_error'
  /** An extension code for the registration endpoint's per-IP limit (the RFCs define none). */
  | 'rate_limited';

export class OAuthError extends Error {
  override name = 'OAuthError';
  constructor(
    readonly code: OAuthErrorCode,
    readonly description: string,
    readonly status: 400 | 401 | 429 | 500 = code === 'invalid_client' ? 401 : 400,
    readonly headers: Record<string, string> = {},
  ) {
    super(description);
  }
}

/** Responses carrying credentials or their errors must never be cached (RFC 6749 5.1). */
export const NO_STORE = { 'Cache-Control': 'no-store', Pragma: 'no-cache' } as const;

export function oauthErrorResponse(error: OAuthError, extra: Record<string, unknown> = {}): Response {
  return new Response(JSON.stringify({ error: error.code, error_description: error.description, ...extra }), {
    status: error.status,
    headers: { 'Content-Type': 'application/json', ...NO_STORE, ...error.headers },
  });
}
