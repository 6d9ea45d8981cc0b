import type { Context, MiddlewareHandler } from 'hono';
import { jsonTextTooDeep, MAX_JSON_DEPTH } from '../../platform/json-depth.js';
import { findUnstorableText } from '../../platform/storable-text.js';
import type { FieldProblem } from '../../platform/validation.js';
import { MAX_BODY_BYTES, readBytesWithin } from './body-limit.js';
import type { AppEnv } from './env.js';

const FORM_TYPE = /^application\/x-www-form-urlencoded\b/i;
const MULTIPART_TYPE = /^multipart\/form-data\b/i;
const JSON_TYPE = /^application\/([a-z0-9.+-]+\+)?json\b/i;

/**
 * The routes that are not operations (OAuth endpoints, console pages and forms, push ingest, the
 * connections OAuth callback) do not pass the registry's input boundary, but they too look text up
 * and store it: a NUL or an unpaired surrogate in a query value, the path, a form field (urlencoded or
 * multipart, where a file's name counts as its field's text) or a JSON body would fail the statement and
 * answer 500. This guard refuses such a request before its handler runs,
 * as it refuses a body over MAX_BODY_BYTES (whatever its type, read no further than the limit) and a JSON
 * body nested deeper than MAX_JSON_DEPTH (platform/json-depth.ts), in the route's own error format
 * (`render`). The body is read from a clone, so the handler (and a signature check over the raw bytes)
 * still reads it whole.
 */
export function refuseUnstorableText(
  render: (c: Context<AppEnv>, problem: FieldProblem) => Response | Promise<Response>,
): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const problem = (await unstorableTextOf(c))[0];
    if (problem) return render(c, problem);
    await next();
  };
}

async function unstorableTextOf(c: Context<AppEnv>): Promise<FieldProblem[]> {
  const url = new URL(c.req.url);
  const path = decodedPath(url.pathname);
  const inPath = findUnstorableText(path, ['path']);
  if (inPath.length > 0) return inPath;
  const inQuery = findUnstorableText(fieldsOf(url.searchParams));
  if (inQuery.length > 0) return inQuery;
  if (c.req.method === 'GET' || c.req.method === 'HEAD' || !c.req.raw.body) return [];
  const bytes = await readBytesWithin(c.req.raw.clone());
  if (bytes === undefined) return [TOO_LARGE];
  const type = c.req.header('content-type') ?? '';
  if (MULTIPART_TYPE.test(type)) return findUnstorableText(await multipartFieldsOf(bytes, type));
  const text = new TextDecoder().decode(bytes);
  if (FORM_TYPE.test(type)) return findUnstorableText(fieldsOf(new URLSearchParams(text)));
  if (JSON_TYPE.test(type)) {
    // Judged on the text, before the parse and the walk: nesting past the limit is refused outright.
    if (jsonTextTooDeep(text)) return [TOO_DEEP];
    try {
      return findUnstorableText(JSON.parse(text) as unknown);
    } catch {
      return []; // Malformed JSON is the handler's to refuse, in its own words.
    }
  }
  return [];
}

const TOO_DEEP: FieldProblem = {
  field: 'body',
  code: 'too_deep',
  problem: `nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep`,
};

const TOO_LARGE: FieldProblem = {
  field: 'body',
  code: 'too_large',
  problem: `is over ${MAX_BODY_BYTES} bytes (1 MiB)`,
};

/**
 * The values by name: one value as itself, a repeated name as the list of its values. One pass over the
 * pairs (a look-up of each name's values would rescan them all per name: quadratic in a form of many
 * names), into an object without a prototype so that a field named `__proto__` is a field.
 */
export function fieldsOf(params: Iterable<readonly [string, string]>): Record<string, string | string[]> {
  const fields: Record<string, string | string[]> = Object.create(null);
  for (const [name, value] of params) {
    const seen = fields[name];
    if (seen === undefined) fields[name] = value;
    else if (Array.isArray(seen)) seen.push(value);
    else fields[name] = [seen, value];
  }
  return fields;
}

/**
 * A multipart body's fields as fieldsOf gives them, a file standing for its name (the one text of it that
 * is looked up and stored). A body that does not parse has no fields here: the route's form reader
 * refuses it in its own words (functions/web/form-body.ts).
 */
async function multipartFieldsOf(bytes: Uint8Array, type: string): Promise<Record<string, string | string[]>> {
  let form: FormData;
  try {
    form = await new Response(bytes as Uint8Array<ArrayBuffer>, { headers: { 'content-type': type } }).formData();
  } catch {
    return {};
  }
  const pairs: [string, string][] = [];
  for (const [name, value] of form) pairs.push([name, typeof value === 'string' ? value : value.name]);
  return fieldsOf(pairs);
}

function decodedPath(pathname: string): string {
  try {
    return decodeURIComponent(pathname);
  } catch {
    return pathname; // Not valid percent-encoding: nothing decodes to a NUL or a surrogate then.
  }
}
