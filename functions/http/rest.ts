import type { OpenAPIHono } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { authorizeOperation, runOperation, type InvocationScope, type RawInput } from '../invoke.js';
import { isStatic, staticJson } from '../../platform/static-value.js';
import type { Download, DownloadBody, Operation, OperationRegistry } from '../registry.js';
import { API_PREFIX, type AppEnv } from './env.js';
import { IDEMPOTENCY_HEADER, REPLAYED_HEADER, runIdempotently } from './idempotency.js';
import { readJsonBody } from './json-body.js';
import { readUploadInput } from './multipart-upload.js';
import { setRateLimitHeaders } from './rate-limit-headers.js';
import { streamRunEvents, wantsEventStream } from './run-stream.js';

/** An SSE client reconnecting sends Last-Event-ID; it means the same as ?after= when that is absent. */
function withLastEventId(c: Context, query: Record<string, string>): Record<string, string> {
  const lastEventId = c.req.header('last-event-id');
  return lastEventId && query.after === undefined ? { ...query, after: lastEventId } : query;
}

/** Hono path for an OpenAPI-style operation path: "/research/{id}" → "/api/platform/v1/research/:id". */
export const honoPath = (op: Operation): string => API_PREFIX + op.path.replace(/\{(\w+)\}/g, ':$1');

export function invocationScope(
  c: Context<AppEnv>,
  registry: OperationRegistry,
  origin: 'rest' | 'mcp' = 'rest',
): InvocationScope {
  return {
    origin,
    registry,
    services: c.get('services'),
    caller: c.get('caller'),
    correlationId: c.get('correlationId'),
    // Read on use: a request's abort signal is built on first access (node-server), which costs as
    // much as the rest of a cached read, and only operations that wait or stream ever look at it.
    get signal() {
      return c.req.raw.signal;
    },
  };
}

/**
 * A request's raw input. Only the parts the operation declares are read, since parsing the rest is
 * wasted work, unless `whole`: an Idempotency-Key covers the whole request (path, query and body).
 */
async function restInput(c: Context<AppEnv>, op: Operation, streaming: boolean, whole = false): Promise<RawInput> {
  const params = op.params || whole ? (c.req.param() as Record<string, string>) : undefined;
  const query = op.query || whole ? (streaming ? withLastEventId(c, c.req.query()) : c.req.query()) : undefined;
  if (op.upload) return { params, query, ...(await readUploadInput(c, op.upload)) };
  return { params, query, body: op.body ? await readJsonBody(c) : undefined };
}

/** Every declared operation becomes a REST route; success bodies are wrapped as {data: ...}. */
export function mountRestOperations(app: OpenAPIHono<AppEnv>, registry: OperationRegistry): void {
  for (const op of registry.all()) {
    app.on(op.method.toUpperCase(), honoPath(op), async (c) => {
      const streaming = Boolean(op.stream) && (op.streamOnly === true || wantsEventStream(c));
      const scope = invocationScope(c, registry);
      const idempotencyKey = op.idempotent ? c.req.header(IDEMPOTENCY_HEADER) : undefined;
      let outcome;
      if (idempotencyKey !== undefined) {
        // The caller is judged first, exactly as a fresh call judges them: a stored response is
        // replayed only to a caller who may run the operation now (its scopes, role, visibility and
        // credential kind), and a refused caller learns nothing of the key or of their input.
        authorizeOperation(registry, op, scope.caller, scope.origin);
        // An upload operation is never idempotent (its file is not part of the replay key).
        const { params, query, body } = await restInput(c, op, streaming, true);
        const request = { params, query, body };
        const result = await runIdempotently(
          scope.services.db,
          { op, caller: scope.caller, key: idempotencyKey, request, now: scope.services.clock.now() },
          () => runOperation(op, scope, async () => request),
        );
        c.header(REPLAYED_HEADER, String(result.replayed));
        if (result.replayed) return c.json(result.body as object, result.status as 200);
        outcome = result.outcome;
      } else {
        outcome = await runOperation(op, scope, () => restInput(c, op, streaming), streaming ? 'stream' : 'respond');
      }
      if (outcome.stream) return streamRunEvents(c, outcome.stream);
      if (op.download) return downloadResponse(op.download, outcome.output as DownloadBody, c.get('correlationId'));
      // An operation with its own per-user limit shows that budget: it is the one a client paces to
      // (search's 10 a minute binds long before the per-address limit does).
      if (outcome.rateLimit) setRateLimitHeaders(c, outcome.rateLimit);
      // A static output (a frozen catalog) is serialized once; the envelope is built around its text.
      if (isStatic(outcome.output))
        return c.body(`{"data":${staticJson(outcome.output)}}`, outcome.status, { 'Content-Type': 'application/json' });
      return c.json({ data: outcome.output }, outcome.status);
    });
  }
}

/**
 * A download, unwrapped and streamed: each chunk is encoded as it is produced, so a large export is
 * never held in memory. A failure after the first byte can only end the stream early; the last
 * line a client receives then is incomplete, which CSV and JSONL readers both detect.
 */
function downloadResponse(download: Download, body: DownloadBody, correlationId: string): Response {
  const encoder = new TextEncoder();
  const iterator = body[Symbol.asyncIterator]();
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await iterator.next();
      if (next.done) controller.close();
      else controller.enqueue(encoder.encode(next.value));
    },
    async cancel() {
      await iterator.return?.();
    },
  });
  return new Response(stream, {
    status: 200,
    headers: {
      'Content-Type': download.contentType,
      'Content-Disposition': `attachment; filename="${download.filename}"`,
      'Cache-Control': 'no-store',
      'X-Correlation-Id': correlationId,
    },
  });
}
