import { describe, expect, it } from 'vitest';
import { SCOPES } from '../../functions/identity/scopes.js';
import { MAX_BODY_BYTES } from '../../functions/http/body-limit.js';
import { OAUTH_PATHS } from '../../functions/oauth/metadata.js';
import type { SecurityContext } from './security-suite.js';

/** The size of each chunk the probe streams, and so how far past the limit a reader may look before it stops. */
const CHUNK_BYTES = 64 * 1024;
/** Far past the limit: a route that reads the whole body before judging its size reads all of this. */
const STREAMED_BYTES = 8 * MAX_BODY_BYTES;

interface RouteProbe {
  /** The route group, as the report names it. */
  group: string;
  path: string | ((ctx: SecurityContext) => Promise<string>);
  contentType: string;
  /** What the body starts with, so that what the route reads is its own kind of body, just too long. */
  prefix: string;
  /** The refusal, in the route's own format. */
  expectRefusal: (res: Response) => Promise<void>;
}

const envelope = async (res: Response) => {
  expect(res.status).toBe(400);
  expect(await res.json()).toMatchObject({ error: { code: 'invalid_argument', details: { body: 'too_large' } } });
};
const oauthJson = async (res: Response) => {
  expect(res.status).toBe(400);
  expect(await res.json()).toMatchObject({
    error: 'invalid_request',
    error_description: expect.stringContaining(`body: is over ${MAX_BODY_BYTES} bytes`),
  });
};
const page = async (res: Response) => {
  expect(res.status).toBe(400);
  expect(res.headers.get('content-type')).toContain('text/html');
  expect(await res.text()).toContain(`body: is over ${MAX_BODY_BYTES} bytes`);
};

/**
 * A connected webhook source, in a workspace of its own (the suite's workspaces may be at their cap of
 * connections): its ingest URL reads the body once the id is known.
 */
const webhookIngestPaths = new WeakMap<SecurityContext, Promise<string>>();
function webhookIngestPath(ctx: SecurityContext): Promise<string> {
  let path = webhookIngestPaths.get(ctx);
  if (!path) {
    path = (async () => {
      const ws = await ctx.h.seedWorkspace('body-limit-probe');
      const res = await ctx.h.request('POST', '/connections', {
        bearer: await ws.tokenFor(ws.admin, SCOPES),
        body: { connector_type: 'call_webhook', display_name: 'Body limit probe' },
      });
      expect(res.status, res.text).toBe(200);
      return new URL(res.body.data.ingest.url as string).pathname;
    })();
    webhookIngestPaths.set(ctx, path);
  }
  return path;
}

/**
 * The routes that are not operations, one per group of what reads their bodies: the console's pages, each
 * OAuth endpoint that takes a body, and the callbacks (a webhook source's push ingest, the queue's stage
 * deliveries).
 */
const ROUTES: RouteProbe[] = [
  {
    group: 'console page',
    path: '/console/sign-in/link',
    contentType: 'application/x-www-form-urlencoded',
    prefix: 'token=',
    expectRefusal: page,
  },
  {
    group: 'OAuth consent',
    path: OAUTH_PATHS.authorize,
    contentType: 'application/x-www-form-urlencoded',
    prefix: 'decision=',
    expectRefusal: page,
  },
  {
    group: 'OAuth token',
    path: OAUTH_PATHS.token,
    contentType: 'application/x-www-form-urlencoded',
    prefix: 'grant_type=',
    expectRefusal: oauthJson,
  },
  {
    group: 'OAuth revoke',
    path: OAUTH_PATHS.revoke,
    contentType: 'application/x-www-form-urlencoded',
    prefix: 'token=',
    expectRefusal: oauthJson,
  },
  {
    group: 'OAuth registration',
    path: OAUTH_PATHS.register,
    contentType: 'application/json',
    prefix: '{"client_name":"',
    expectRefusal: oauthJson,
  },
  {
    group: 'webhook source push',
    path: webhookIngestPath,
    contentType: 'application/json',
    prefix: '{"type":"call","title":"',
    expectRefusal: envelope,
  },
  {
    group: 'queue stage delivery',
    path: '/queues/run-stage',
    contentType: 'application/json',
    prefix: '{"run_id":"',
    expectRefusal: envelope,
  },
];

/** A body streamed in chunks with no Content-Length (nothing to refuse it by unread), counting what is pulled. */
function streamedBody(prefix: string): { body: ReadableStream<Uint8Array>; pulled: () => number } {
  const encoder = new TextEncoder();
  const filler = encoder.encode('a'.repeat(CHUNK_BYTES));
  let sent = 0;
  const body = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (sent >= STREAMED_BYTES) return controller.close();
        const chunk = sent === 0 ? encoder.encode(prefix + 'a'.repeat(CHUNK_BYTES - prefix.length)) : filler;
        sent += chunk.byteLength;
        controller.enqueue(chunk);
      },
    },
    { highWaterMark: 0 },
  );
  return { body, pulled: () => sent };
}

/**
 * A class of attempts for the routes outside the registry: a body over MAX_BODY_BYTES (1 MiB), streamed,
 * is refused in the route's own format (400 by the code table: invalid_argument, `body: too_large`), and
 * the server stops reading at the limit, so an endless body costs it no more than 1 MiB and a chunk.
 */
export function describeRouteBodyLimits(get: () => SecurityContext): void {
  describe(`a body over ${MAX_BODY_BYTES} bytes on the routes that are not operations`, () => {
    it.each(ROUTES.map((route) => [route.group, route] as const))(
      '%s: refused in its own format, read no further than the limit',
      async (_group, route) => {
        const ctx = get();
        const origin = ctx.h.services.config.publicUrl;
        const path = typeof route.path === 'string' ? route.path : await route.path(ctx);
        const { body, pulled } = streamedBody(route.prefix);
        const res = await ctx.h.fetch(
          new Request(`${origin}${path}`, {
            method: 'POST',
            headers: { 'content-type': route.contentType, origin },
            body,
            duplex: 'half',
          } as RequestInit),
        );
        await route.expectRefusal(res);
        // The route read up to the limit (it judged the body), and stopped within a chunk or two of it.
        expect(pulled()).toBeGreaterThan(MAX_BODY_BYTES);
        expect(pulled()).toBeLessThanOrEqual(MAX_BODY_BYTES + 2 * CHUNK_BYTES);
      },
    );
  });
}
