import { OpenAPIHono } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { sha256Hex } from '../platform/crypto.js';
import { requireCaller } from './http/authenticate.js';
import { mountBrowserAndOAuthRoutes } from './http/browser-and-oauth-routes.js';
import { correlationId } from './http/correlation.js';
import { API_PREFIX, type App, type AppEnv } from './http/env.js';
import { notFound, onError } from './http/errors.js';
import { globalRateLimit } from './http/global-limit.js';
import { buildOpenApiDocument } from './http/openapi.js';
import { mountRestOperations } from './http/rest.js';
import { mountRetiredRoutes } from './http/retired-routes.js';
import { stageEndpoint } from './http/stage-endpoint.js';
import { mcpHandler } from './mcp/server.js';
import { defaultRegistry } from './modules.js';
import type { OperationRegistry } from './registry.js';
import type { Services } from './services.js';

export interface AppOptions {
  /** The ports, fixed (Node, tests) or built per request from bindings (Workers). */
  services: Services | ((c: Context<AppEnv>) => Services);
  /** The operations to serve; defaults to the services' registry (fixed services) or every operation. */
  registry?: OperationRegistry;
  /** The client address for the per-IP limit; the entry point knows where it comes from. */
  clientIp?: (c: Context<AppEnv>) => string | undefined;
  /**
   * Keep a gzip copy of static documents and serve it to clients that accept gzip (Node). Not on
   * Workers: Cloudflare compresses at the edge, and the runtime would compress a gzip body again.
   */
  precompress?: boolean;
}

interface StaticDocument {
  publicUrl: string;
  bytes: Uint8Array;
  gzip: Uint8Array | null;
  etag: string;
}

async function encodeStatic(publicUrl: string, body: string, precompress: boolean): Promise<StaticDocument> {
  const bytes = new TextEncoder().encode(body);
  const gzip = precompress
    ? new Uint8Array(
        await new Response(new Blob([bytes]).stream().pipeThrough(new CompressionStream('gzip'))).arrayBuffer(),
      )
    : null;
  return { publicUrl, bytes, gzip, etag: `"${(await sha256Hex(bytes)).slice(0, 32)}"` };
}

export type { App } from './http/env.js';

/**
 * The one app factory: production, the Node entry and every test build the app here, so they all
 * run the same middleware in the same order (architecture, "A request").
 */
export function createApp(options: AppOptions): { app: App; registry: OperationRegistry } {
  const registry =
    options.registry ?? (typeof options.services === 'function' ? defaultRegistry() : options.services.registry);
  const app: App = new OpenAPIHono<AppEnv>();
  const resolveServices =
    typeof options.services === 'function' ? options.services : () => options.services as Services;
  let openApiDocument: StaticDocument | undefined;

  app.onError(onError);
  app.notFound(notFound);

  app.use('*', correlationId);
  app.use('*', async (c, next) => {
    const services = resolveServices(c);
    c.set('services', services);
    // Behind one trusted proxy, the client is the last X-Forwarded-For hop (the one that proxy appended);
    // earlier entries come from the client and could be forged to dodge the per-IP limit.
    const forwarded = services.config.TRUST_PROXY
      ? c.req.header('x-forwarded-for')?.split(',').at(-1)?.trim()
      : undefined;
    c.set('clientIp', forwarded || options.clientIp?.(c) || 'unknown');
    await next();
  });

  app.use(`${API_PREFIX}/*`, globalRateLimit);

  // Built, serialized and encoded once per app (and public URL), served from memory with an ETag.
  app.get(`${API_PREFIX}/openapi.json`, async (c) => {
    const publicUrl = c.get('services').config.publicUrl;
    if (openApiDocument?.publicUrl !== publicUrl)
      openApiDocument = await encodeStatic(
        publicUrl,
        JSON.stringify(buildOpenApiDocument(registry, publicUrl)),
        options.precompress === true,
      );
    const { bytes, gzip, etag } = openApiDocument;
    const headers: Record<string, string> = {
      ETag: etag,
      'Cache-Control': 'public, max-age=300',
      Vary: 'Accept-Encoding',
    };
    if (
      c.req
        .header('if-none-match')
        ?.split(/\s*,\s*/)
        .includes(etag)
    )
      return c.body(null, 304, headers);
    if (gzip && /\bgzip\b/.test(c.req.header('accept-encoding') ?? '')) {
      return c.body(gzip as Uint8Array<ArrayBuffer>, 200, {
        ...headers,
        'Content-Type': 'application/json',
        'Content-Encoding': 'gzip',
      });
    }
    return c.body(bytes as Uint8Array<ArrayBuffer>, 200, { ...headers, 'Content-Type': 'application/json' });
  });

  // OAuth and the console: their own formats, before the credential check (functions/http/browser-and-oauth-routes.ts).
  mountBrowserAndOAuthRoutes(app, registry);

  app.use(`${API_PREFIX}/*`, requireCaller);
  app.all(`${API_PREFIX}/mcp`, mcpHandler(registry));
  mountRestOperations(app, registry);
  mountRetiredRoutes(app);

  app.post('/queues/:kind', stageEndpoint());

  return { app, registry };
}
