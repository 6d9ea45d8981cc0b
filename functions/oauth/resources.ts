import { API_PREFIX } from '../http/env.js';
import { OAuthError } from './oauth-error.js';

/**
 * The protected resources this authorization server issues tokens for (RFC 8707): the REST API and
 * its MCP endpoint. A token's audience is the resource it was granted for; a token for the MCP
 * endpoint is accepted there only, a token for the API everywhere under the prefix (MCP included).
 */
export interface ProtectedResources {
  api: string;
  mcp: string;
}

export const protectedResources = (publicUrl: string): ProtectedResources => ({
  api: `${publicUrl}${API_PREFIX}`,
  mcp: `${publicUrl}${API_PREFIX}/mcp`,
});

/** The resource a request names, or the API when it names none; anything else is `invalid_target`. */
export function resolveResource(requested: string | undefined, resources: ProtectedResources): string {
  if (requested === undefined || requested === '') return resources.api;
  const normalized = requested.replace(/\/+$/, '');
  if (normalized === resources.api || normalized === resources.mcp) return normalized;
  throw new OAuthError(
    'invalid_target',
    `Unknown resource "${requested}": this server issues tokens for ${resources.api} and ${resources.mcp}.`,
  );
}
