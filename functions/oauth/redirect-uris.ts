import { isLoopbackHost } from '../../platform/net/loopback.js';

/**
 * Which redirect URIs a client may register (OAuth 2.1 and RFC 8252): https anywhere, http only to a
 * loopback host (a desktop client listening on 127.0.0.1), never a fragment, never a wildcard, never
 * credentials in the URL. Matching at authorize time is exact string comparison, so what is
 * registered here is exactly where codes may go.
 */

export function redirectUriProblem(value: string): string | null {
  if (value.length > 2000) return 'is longer than 2000 characters';
  if (value.includes('*')) return 'must not contain a wildcard';
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'is not an absolute URL';
  }
  if (value.includes('#')) return 'must not contain a fragment';
  if (url.username || url.password) return 'must not contain credentials';
  if (url.protocol === 'https:') return null;
  if (url.protocol === 'http:')
    return isLoopbackHost(url.hostname)
      ? null
      : 'must use https (http is allowed only to localhost, 127.0.0.1 or [::1])';
  return `uses the scheme "${url.protocol.replace(/:$/, '')}"; only https, or http to a loopback host, is allowed`;
}
