import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { Context } from 'hono';
import { ApiError, toApiError } from '../../platform/errors.js';
import { runOperation, splitFlatInput } from '../invoke.js';
import type { OperationRegistry } from '../registry.js';
import type { AppEnv } from '../http/env.js';
import { invocationScope } from '../http/rest.js';
import { buildMcpCatalog } from './catalog.js';

const SERVER_INFO = { name: 'customer-intelligence-platform', version: '1.0.0' };

/**
 * The MCP endpoint (Streamable HTTP, stateless): a fresh server and transport per request, with the
 * caller already resolved by the same credential middleware as REST. Tool errors carry the same
 * `{error: {code, message, details}}` envelope as REST bodies.
 */
export function mcpHandler(registry: OperationRegistry) {
  const catalog = buildMcpCatalog(registry);
  const tools = new Map(catalog.tools.map((t) => [t.name, t]));

  return async (c: Context<AppEnv>): Promise<Response> => {
    const scope = invocationScope(c, registry);
    const log = scope.services.log;
    const server = new Server(SERVER_INFO, { capabilities: { tools: {}, resources: {} } });

    server.setRequestHandler(ListToolsRequestSchema, async () => ({
      tools: catalog.tools.map(({ name, description, inputSchema }) => ({ name, description, inputSchema })),
    }));

    server.setRequestHandler(CallToolRequestSchema, async (request) => {
      try {
        const tool = tools.get(request.params.name);
        if (!tool) {
          throw new ApiError('invalid_argument', `Unknown tool "${request.params.name}".`, { tool: request.params.name, allowed: [...tools.keys()] });
        }
        const { action, ...args } = request.params.arguments ?? {};
        const op = typeof action === 'string' ? tool.actions.get(action) : undefined;
        if (!op) {
          throw new ApiError('invalid_argument', `The ${tool.name} tool needs "action", one of: ${[...tool.actions.keys()].join(', ')}.`, {
            fields: [{ field: 'action', problem: 'unknown or missing action', code: 'invalid_value', allowed: [...tool.actions.keys()] }],
          });
        }
        const outcome = await runOperation(op, scope, async () => splitFlatInput(op, args));
        const structured = isRecord(outcome.output) ? outcome.output : { result: outcome.output };
        return { content: [{ type: 'text' as const, text: JSON.stringify(outcome.output) }], structuredContent: structured };
      } catch (e) {
        const error = toApiError(e);
        if (error.status >= 500) log.error('MCP tool call failed', { correlation_id: scope.correlationId, error: e });
        const envelope = error.toEnvelope();
        return { isError: true, content: [{ type: 'text' as const, text: JSON.stringify(envelope) }], structuredContent: { ...envelope } };
      }
    });

    server.setRequestHandler(ListResourcesRequestSchema, async () => ({
      resources: catalog.resources
        .filter((r) => !r.isTemplate)
        .map((r) => ({ uri: r.uri, name: r.op.id, description: r.op.summary, mimeType: 'application/json' })),
    }));

    server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({
      resourceTemplates: catalog.resources
        .filter((r) => r.isTemplate)
        .map((r) => ({ uriTemplate: r.uri, name: r.op.id, description: r.op.summary, mimeType: 'application/json' })),
    }));

    server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
      const uri = request.params.uri;
      for (const resource of catalog.resources) {
        const match = resource.pattern.exec(uri);
        if (!match) continue;
        const params = Object.fromEntries(resource.placeholders.map((name, i) => [name, decodeURIComponent(match[i + 1] ?? '')]));
        try {
          const outcome = await runOperation(resource.op, scope, async () => splitFlatInput(resource.op, params));
          return { contents: [{ uri, mimeType: 'application/json', text: JSON.stringify(outcome.output) }] };
        } catch (e) {
          const error = toApiError(e);
          throw new McpError(error.status === 404 ? ErrorCode.InvalidParams : ErrorCode.InternalError, error.message, error.toEnvelope());
        }
      }
      throw new McpError(ErrorCode.InvalidParams, `Unknown resource ${uri}.`, new ApiError('not_found', `Unknown resource ${uri}.`).toEnvelope());
    });

    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await server.connect(transport);
    try {
      return await transport.handleRequest(c.req.raw);
    } finally {
      void server.close();
    }
  };
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
