import { OpenAPIHono, z } from '@hono/zod-openapi';
import { ErrorEnvelopeSchema } from '../../platform/errors.js';
import { SCOPE_DESCRIPTIONS } from '../oauth/index.js';
import { SCOPES } from '../identity/scopes.js';
import { GUIDES, GUIDES_PATH, guideSectionOf } from '../guides.js';
import type { OperationRegistry } from '../registry.js';
import { API_PREFIX } from './env.js';

const errorResponse = (description: string) => ({
  description,
  content: { 'application/json': { schema: ErrorEnvelopeSchema } },
});

/** What a multipart upload's example shows in place of a file's bytes (a file picker in the reference). */
export const UPLOAD_EXAMPLE = '(the file)';

/** The error responses every operation may give, spread into each route. */
const ERROR_RESPONSES = {
  400: errorResponse(
    'invalid_argument: the payload is wrong; details name each field and, for unknown fields, the allowed set.',
  ),
  401: errorResponse(
    'unauthenticated, invalid_token or expired_token: missing, malformed, expired or revoked credential.',
  ),
  403: errorResponse('scope_denied, insufficient_role, not_on_public_api or forbidden.'),
  404: errorResponse('not_found: missing, or belongs to another workspace.'),
  409: errorResponse(
    'conflict, duplicate, version_conflict, invalid_state, slug_conflict, locked or cannot_cancel: read the resource, reconcile, retry where it makes sense.',
  ),
  429: errorResponse(
    'rate_limited (honour Retry-After) or quota_exceeded (monthly cap; terminal until the month rolls).',
  ),
  500: errorResponse('internal: retry with backoff and quote the X-Correlation-Id.'),
} as const;

/**
 * Build the OpenAPI 3.1 document from the registry, so it cannot drift from the routes. Each
 * operation carries its scopes and stability both in prose and as x- extensions.
 */
export function buildOpenApiDocument(registry: OperationRegistry, publicUrl: string): unknown {
  const doc = new OpenAPIHono();
  const r = doc.openAPIRegistry;
  r.registerComponent('securitySchemes', 'ApiKeyHeader', {
    type: 'apiKey',
    in: 'header',
    name: 'X-API-Key',
    description: 'An API key (prefix cip_).',
  });
  r.registerComponent('securitySchemes', 'Bearer', {
    type: 'http',
    scheme: 'bearer',
    description: 'An API key (cip_...), an OAuth access token issued by this service, or an identity-provider JWT.',
  });
  r.registerComponent('securitySchemes', 'OAuth2', {
    type: 'oauth2',
    flows: {
      authorizationCode: {
        authorizationUrl: `${publicUrl}${API_PREFIX}/oauth/authorize`,
        tokenUrl: `${publicUrl}${API_PREFIX}/oauth/token`,
        refreshUrl: `${publicUrl}${API_PREFIX}/oauth/token`,
        scopes: Object.fromEntries(SCOPES.map((s) => [s, SCOPE_DESCRIPTIONS[s]])),
      },
    },
  });
  const guideUrl = (section: string) => `${publicUrl}${GUIDES_PATH}/${section}`;
  for (const op of registry.published()) {
    const guide = guideSectionOf(op);
    const scopesText = op.scopes.length ? op.scopes.map((s) => `\`${s}\``).join(', ') : 'none (any valid credential)';
    r.registerPath({
      method: op.method,
      path: op.path,
      operationId: op.id,
      summary: op.summary,
      description: [
        op.description,
        `**Stability:** ${op.stability}. **Scopes:** ${scopesText}. **Minimum role:** ${op.minRole}.`,
        op.rateLimit
          ? `**Limit:** ${op.rateLimit.limit} calls per ${op.rateLimit.windowSeconds} s per user.`
          : undefined,
        op.quota ? `**Monthly quota family:** ${op.quota}.` : undefined,
        op.mcp
          ? `**MCP:** tool \`${op.mcp.tool}\`, action \`${op.mcp.action}\`${op.mcp.resource ? `, resource \`${op.mcp.resource}\`` : ''}.`
          : undefined,
        guide ? `**Guide:** [docs/guides/${guide}](${guideUrl(guide)}).` : undefined,
      ]
        .filter(Boolean)
        .join('\n\n'),
      ...(guide ? { externalDocs: { description: `Guide: docs/guides/${guide}`, url: guideUrl(guide) } } : {}),
      tags: op.tags,
      security: [{ ApiKeyHeader: [] }, { Bearer: [] }, { OAuth2: [...op.scopes] }],
      request: {
        ...(op.params ? { params: op.params } : {}),
        ...(op.query ? { query: op.query } : {}),
        ...(op.upload
          ? {
              body: {
                required: true,
                description: `The file in the multipart field \`${op.upload.field}\`, at most ${op.upload.maxBytes} bytes (413 file_too_large with details.code LIMIT_FILE_SIZE beyond; another field name is 400). Over MCP, send \`content_base64\` and \`filename\` instead.`,
                content: {
                  'multipart/form-data': {
                    schema: z.object({ [op.upload.field]: z.string().openapi({ format: 'binary' }) }),
                    example: { [op.upload.field]: UPLOAD_EXAMPLE },
                  },
                },
              },
            }
          : op.body
            ? {
                body: {
                  required: op.bodyRequired ?? true,
                  content: { 'application/json': { schema: op.body, ...(op.example ? { example: op.example } : {}) } },
                },
              }
            : {}),
      },
      responses: {
        [op.successStatus ?? 200]: op.streamOnly
          ? {
              description: 'Server-sent events (not wrapped).',
              content: { 'text/event-stream': { schema: z.string() } },
            }
          : op.download
            ? {
                description: `A file download (not wrapped), streamed, with \`Content-Disposition: attachment; filename="${op.download.filename}"\`.`,
                content: { [op.download.contentType]: { schema: z.string() } },
              }
            : {
                description: op.stream
                  ? "Success, wrapped in `data`; with `Accept: text/event-stream`, the run's events instead (not wrapped)."
                  : 'Success, wrapped in `data`.',
                content: {
                  'application/json': { schema: z.object({ data: op.output }) },
                  ...(op.stream ? { 'text/event-stream': { schema: z.string() } } : {}),
                },
              },
        ...ERROR_RESPONSES,
        ...(op.upload
          ? {
              413: errorResponse(
                "file_too_large: the file is over this endpoint's limit; details.code is LIMIT_FILE_SIZE and details.field names the field.",
              ),
            }
          : {}),
      },
      'x-stability': op.stability,
      'x-scopes': [...op.scopes],
      'x-min-role': op.minRole,
      ...(op.mcp ? { 'x-mcp': op.mcp } : {}),
    });
  }
  return doc.getOpenAPI31Document({
    openapi: '3.1.0',
    info: {
      title: 'Customer Intelligence Platform API',
      version: '1.0.0',
      description: [
        "REST access to a workspace's first-party customer data. Every success body is wrapped as `{data: ...}`;",
        'every error is `{error: {code, message, details}}`; every response carries `X-Correlation-Id`.',
        `The same operations are MCP tools at \`${API_PREFIX}/mcp\` (Streamable HTTP, stateless, same credentials).`,
        'OAuth 2.1 (authorization code + PKCE S256, dynamic client registration at `/oauth/register`, discovery at',
        "`/.well-known/oauth-authorization-server`) is not described as operations: its endpoints answer in the OAuth RFCs' own",
        'formats, errors as `{error, error_description}`, not the envelope above.',
        `\n\n**Guides** (docs/guides/ in the repository; [all guides](${publicUrl}${GUIDES_PATH})):`,
        GUIDES.map((g) => `[${g.title}](${guideUrl(g.page)})`).join(', '),
      ].join(' '),
    },
    servers: [{ url: `${publicUrl}${API_PREFIX}` }],
  });
}
