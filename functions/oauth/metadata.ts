import { API_PREFIX } from '../http/env.js';
import { API_KEY_PREFIX } from '../identity/api-keys.js';
import type { ResourceKind } from '../identity/oauth-tokens.js';
import { BUNDLE_TABLE, BUNDLES, DEFAULT_BUNDLE, SCOPES } from '../identity/scopes.js';
import { TOKEN_ENDPOINT_AUTH_METHODS } from './clients.js';
import { protectedResources } from './resources.js';

/** Where the OAuth endpoints live (spec, Authentication 3): under the API prefix. */
export const OAUTH_PATHS = {
  authorize: `${API_PREFIX}/oauth/authorize`,
  token: `${API_PREFIX}/oauth/token`,
  register: `${API_PREFIX}/oauth/register`,
  revoke: `${API_PREFIX}/oauth/revoke`,
} as const;

const AUTHORIZATION_SERVER_PATH = '/.well-known/oauth-authorization-server';
const PROTECTED_RESOURCE_PATH = '/.well-known/oauth-protected-resource';

/**
 * RFC 9728 3.1: the metadata of a resource with a path lives at the well-known path with the
 * resource's path appended. The bare well-known path answers for the API as well.
 */
export function protectedResourceMetadataUrl(publicUrl: string, resource: ResourceKind): string {
  return `${publicUrl}${PROTECTED_RESOURCE_PATH}${resource === 'mcp' ? `${API_PREFIX}/mcp` : API_PREFIX}`;
}

export const METADATA_PATHS = {
  authorizationServer: AUTHORIZATION_SERVER_PATH,
  protectedResource: PROTECTED_RESOURCE_PATH,
  apiResource: `${PROTECTED_RESOURCE_PATH}${API_PREFIX}`,
  mcpResource: `${PROTECTED_RESOURCE_PATH}${API_PREFIX}/mcp`,
} as const;

/** RFC 8414 authorization server metadata, with the spec's `agent_auth` block. */
export function authorizationServerMetadata(publicUrl: string, documentationUrl: string | undefined) {
  const resources = protectedResources(publicUrl);
  const serviceDocumentation = documentationUrl ?? `${publicUrl}${API_PREFIX}/openapi.json`;
  return {
    issuer: publicUrl,
    authorization_endpoint: `${publicUrl}${OAUTH_PATHS.authorize}`,
    token_endpoint: `${publicUrl}${OAUTH_PATHS.token}`,
    registration_endpoint: `${publicUrl}${OAUTH_PATHS.register}`,
    revocation_endpoint: `${publicUrl}${OAUTH_PATHS.revoke}`,
    scopes_supported: [...SCOPES],
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: [...TOKEN_ENDPOINT_AUTH_METHODS],
    revocation_endpoint_auth_methods_supported: [...TOKEN_ENDPOINT_AUTH_METHODS],
    // RFC 9207: the authorization response names its issuer, so a client talking to several servers cannot be mixed up.
    authorization_response_iss_parameter_supported: true,
    service_documentation: serviceDocumentation,
    /** How an agent gets a credential without reading prose: keys, bundles, OAuth, and the MCP endpoint. */
    agent_auth: {
      api_key: {
        headers: ['X-API-Key: <key>', 'Authorization: Bearer <key>'],
        prefix: API_KEY_PREFIX,
        create_url: `${publicUrl}/console/keys`,
        default_bundle: DEFAULT_BUNDLE,
        bundles: BUNDLES.map((id) => ({
          id,
          label: BUNDLE_TABLE[id].label,
          min_role: BUNDLE_TABLE[id].minRoleToCreate,
          scopes: [...BUNDLE_TABLE[id].scopes],
        })),
      },
      oauth: {
        flow: 'authorization_code',
        pkce: 'S256',
        dynamic_client_registration: `${publicUrl}${OAUTH_PATHS.register}`,
        resources: [resources.api, resources.mcp],
        default_scopes: [...BUNDLE_TABLE[DEFAULT_BUNDLE].scopes],
      },
      mcp: {
        url: resources.mcp,
        transport: 'streamable-http',
        authentication: ['oauth', 'api_key'],
        resource_metadata: protectedResourceMetadataUrl(publicUrl, 'mcp'),
      },
      openapi: `${publicUrl}${API_PREFIX}/openapi.json`,
      documentation: serviceDocumentation,
    },
  };
}

/** RFC 9728 protected resource metadata for the API or the MCP endpoint. */
export function protectedResourceMetadata(
  publicUrl: string,
  resource: ResourceKind,
  documentationUrl: string | undefined,
) {
  const resources = protectedResources(publicUrl);
  return {
    resource: resource === 'mcp' ? resources.mcp : resources.api,
    authorization_servers: [publicUrl],
    scopes_supported: [...SCOPES],
    bearer_methods_supported: ['header'],
    resource_name:
      resource === 'mcp' ? 'Customer Intelligence Platform MCP server' : 'Customer Intelligence Platform API',
    resource_documentation: documentationUrl ?? `${publicUrl}${API_PREFIX}/openapi.json`,
  };
}
