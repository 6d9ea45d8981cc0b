import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import {
  CallToolRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { Context } from 'hono';
import { ApiError, toApiError } from '../../platform/errors.js';
import { assertJsonTextDepth } from '../../platform/json-depth.js';
import { runOperation, splitFlatInput } from '../invoke.js';
import type { OperationRegistry } from '../registry.js';
import type { AppEnv } from '../http/env.js';
import { readBodyBytes } from '../http/json-body.js';
import { invocationScope } from '../http/rest.js';
import { buildMcpCatalog } from './catalog.js';
import { matchResource } from './resource-uri.js';
import { rpcErrorOf, unknownResource } from './rpc-error.js';

const SERVER_INFO = { name: 'customer-intelligence-platform', version: '1.0.0' };

/**
 * The MCP endpoint (Streamable HTTP, stateless): a fresh server and transport per request, with the
 * caller already resolved by the same credential middleware as REST. Tool errors carry the same
 * `{error: {code, message, details}}` envelope as REST bodies; so do the JSON-RPC errors (as their
 * `data`): an unknown tool (-32602, a protocol error per the MCP specification, not a tool result)
 * and a failed resource read (-32002 when it names nothing, -32602 for the caller's other mistakes).
 */
export function mcpHandler(registry: OperationRegistry) {
  const catalog = buildMcpCatalog(registry);
  const tools = new Map(catalog.tools.map((t) => [t.name, t]));
  // A fixed URI wins over a template that also matches it ("thing://list" is not "thing://{id}" with id=list).
  const resourcesByPrecedence = [
    ...catalog.resources.filter((r) => !r.isTemplate),
    ...catalog.resources.filter((r) => r.isTemplate),
  ];
  // The lists are the same for every caller: built once per app, not per request.
  const toolList = {
    tools: catalog.tools.map(({ name, description, inputSchema }) => ({ name, description, inputSchema })),
  };
  const resourceList = {
    resources: catalog.resources
      .filter((r) => !r.isTemplate)
      .map((r) => ({ uri: r.uri, name: r.op.id, description: r.op.summary, mimeType: 'application/json' })),
  };
  const templateList = {
    resourceTemplates: catalog.resources
      .filter((r) => r.isTemplate)
      .map((r) => ({ uriTemplate: r.uri, name: r.op.id, description: r.op.summary, mimeType: 'application/json' })),
  };

  return async (c: Context<AppEnv>): Promise<Response> => {
    if (c.req.method !== 'POST') {
      // Stateless: a fresh server per POST, so there is never anything to push on a GET stream. The MCP
      // spec's signal for "no server-to-client stream" is 405; an SSE stream that closes at once would
      // instead make clients reconnect in a loop, each attempt costing a credential check and a rate-limit hit.
      c.header('Allow', 'POST');
      const error = new ApiError(
        'method_not_allowed',
        `This MCP endpoint is stateless and answers POST only, not ${c.req.method}.`,
        {
          method: c.req.method,
          allowed_methods: ['POST'],
        },
      );
      return c.json(error.toEnvelope(), 405);
    }
    // The same 1 MiB limit and error as REST bodies, before the SDK (whose own limit is 4 MiB) reads anything.
    const body = await readBodyBytes(c);
    // The same nesting limit too, on the whole JSON-RPC message: the SDK parses and validates it
    // before any tool runs, so its depth is judged on the text first.
    assertJsonTextDepth(new TextDecoder().decode(body));
    const scope = invocationScope(c, registry, 'mcp');
    const log = scope.services.log;
    const server = new Server(SERVER_INFO, { capabilities: { tools: {}, resources: {} } });

    server.setRequestHandler(ListToolsRequestSchema, async () => toolList);

    server.setRequestHandler(CallToolRequestSchema, async (request) => {
      const tool = tools.get(request.params.name);
      if (!tool) {
        const unknown = new ApiError('invalid_argument', `Unknown tool "${request.params.name}".`, {
          tool: request.params.name,
          allowed: [...tools.keys()],
        });
        throw rpcErrorOf(unknown, 'tool');
      }
      try {
        const { action, ...args } = request.params.arguments ?? {};
        const op = typeof action === 'string' ? tool.actions.get(action) : undefined;
        if (!op) {
          throw new ApiError(
            'invalid_argument',
            `The ${tool.name} tool needs "action", one of: ${[...tool.actions.keys()].join(', ')}.`,
            {
              fields: [
                {
                  field: 'action',
                  problem: 'unknown or missing action',
                  code: 'invalid_value',
                  allowed: [...tool.actions.keys()],
                },
              ],
            },
          );
        }
        const outcome = await runOperation(op, scope, async () => splitFlatInput(op, args));
        const structured = isRecord(outcome.output) ? outcome.output : { result: outcome.output };
        return {
          content: [{ type: 'text' as const, text: JSON.stringify(outcome.output) }],
          structuredContent: structured,
        };
      } catch (e) {
        const error = toApiError(e);
        if (error.status >= 500) log.error('MCP tool call failed', { correlation_id: scope.correlationId, error: e });
        const envelope = error.toEnvelope();
        return {
          isError: true,
          content: [{ type: 'text' as const, text: JSON.stringify(envelope) }],
          structuredContent: { ...envelope },
        };
      }
    });

    server.setRequestHandler(ListResourcesRequestSchema, async () => resourceList);
    server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => templateList);

    server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
      const uri = request.params.uri;
      const found = matchResource(resourcesByPrecedence, uri);
      if (!found) throw unknownResource(uri);
      try {
        const outcome = await runOperation(found.resource.op, scope, async () => found.input());
        return { contents: [{ uri, mimeType: 'application/json', text: JSON.stringify(outcome.output) }] };
      } catch (e) {
        const error = toApiError(e);
        if (error.status >= 500)
          log.error('MCP resource read failed', { correlation_id: scope.correlationId, error: e });
        throw rpcErrorOf(error, 'resource');
      }
    });

    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    await server.connect(transport);
    try {
      return await transport.handleRequest(
        new Request(c.req.raw.url, { method: 'POST', headers: c.req.raw.headers, body }),
      );
    } finally {
      void server.close();
    }
  };
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
