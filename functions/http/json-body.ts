import type { Context } from 'hono';
import { ApiError } from '../../platform/errors.js';
import { assertJsonTextDepth } from '../../platform/json-depth.js';
import { MAX_BODY_BYTES, readBytesWithin } from './body-limit.js';

const JSON_TYPE = /^application\/([a-z0-9.+-]+\+)?json\s*(;.*)?$/i;

/**
 * Read a JSON request body. An empty body reads as {} (the schema then names what is missing);
 * a body with a non-JSON content type, malformed JSON, more than 1 MiB or nesting deeper than
 * MAX_JSON_DEPTH (`details.reason: too_deep`, judged on the text before it is parsed) is 400 invalid_argument.
 */
export async function readJsonBody(c: Context): Promise<unknown> {
  const bytes = await readBodyBytes(c);
  const text = new TextDecoder().decode(bytes);
  if (text.trim() === '') return {};
  const contentType = c.req.header('content-type');
  if (!contentType || !JSON_TYPE.test(contentType)) {
    throw new ApiError('invalid_argument', 'Content-Type must be application/json.', {
      content_type: contentType ?? null,
      expected: 'application/json',
    });
  }
  assertJsonTextDepth(text);
  try {
    return JSON.parse(text) as unknown;
  } catch (e) {
    throw new ApiError('invalid_argument', `Malformed JSON body: ${e instanceof Error ? e.message : 'parse error'}.`, {
      body: 'malformed_json',
    });
  }
}

/**
 * The request body's bytes, refused past 1 MiB (REST, MCP, pushes alike) with 400 invalid_argument: read as
 * it arrives and given up at the limit (body-limit.ts), so a streamed body with no Content-Length is never
 * held past 1 MiB. The limit is in bytes: a string's length counts UTF-16 units.
 */
export async function readBodyBytes(c: Context): Promise<Uint8Array<ArrayBuffer>> {
  const bytes = await readBytesWithin(c.req.raw);
  if (bytes === undefined) throw bodyTooLarge();
  return bytes as Uint8Array<ArrayBuffer>;
}

export const bodyTooLarge = (): ApiError =>
  new ApiError('invalid_argument', `The request body exceeds ${MAX_BODY_BYTES} bytes.`, {
    body: 'too_large',
    max_bytes: MAX_BODY_BYTES,
  });
