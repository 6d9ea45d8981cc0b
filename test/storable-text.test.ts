import type { z } from '@hono/zod-openapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Caller } from '../functions/identity/caller.js';
import { SCOPES } from '../functions/identity/scopes.js';
import { invokeOperation, type InvocationScope } from '../functions/invoke.js';
import type { ObjectSchema, Operation } from '../functions/registry.js';
import { ManualClock } from '../platform/clock.js';
import { isApiError } from '../platform/errors.js';
import { findUnstorableText } from '../platform/storable-text.js';
import { createHarness, type Harness, type SeededWorkspace, type TestResponse } from './support/harness.js';
import { pathFor } from './support/security-suite.js';

/**
 * Text Postgres cannot store (a NUL, an unpaired UTF-16 surrogate) is refused at the one boundary
 * every operation passes, before any statement: driven by the registry, so an operation added later is
 * covered without anyone remembering it. For every operation and every field that takes text, each
 * bad string is sent over REST (body, path segment, query value), over MCP and in-process as an agent's
 * tool call (or the console's own call), and must come back 400 invalid_argument naming that field.
 */

const clock = new ManualClock('2026-11-25T12:00:00.000Z');
let h: Harness;
let ws: SeededWorkspace;
/** A full admin's OAuth token with every scope: accepted by every public operation (connection lifecycle writes included). */
let bearer: string;

beforeAll(async () => {
  h = await createHarness({ clock });
  ws = await h.seedWorkspace();
  bearer = await ws.tokenFor(ws.admin, SCOPES);
});
afterAll(async () => h?.close());

const BAD_TEXTS = [
  { label: 'a NUL', text: 'a\u0000b', code: 'nul_character' },
  { label: 'a lone low surrogate', text: 'x\udfffy', code: 'unpaired_surrogate' },
  { label: 'a lone high surrogate', text: 'x\ud800', code: 'unpaired_surrogate' },
] as const;

type Where = 'params' | 'query' | 'body';
interface TextField {
  where: Where;
  name: string;
}

/** The zod node under wrappers that do not change what a value may be. */
function unwrap(schema: unknown): { type: string; [key: string]: unknown } | undefined {
  let def = (schema as { _zod?: { def?: { type: string; [key: string]: unknown } } })._zod?.def;
  for (let guard = 0; def && guard < 20; guard++) {
    if (['optional', 'nullable', 'default', 'prefault', 'readonly', 'catch', 'nonoptional'].includes(def.type))
      def = (def.innerType as { _zod: { def: typeof def } })._zod.def;
    else if (def.type === 'pipe') def = (def.in as { _zod: { def: typeof def } })._zod.def;
    else if (def.type === 'lazy') def = ((def.getter as () => { _zod: { def: typeof def } })() as any)._zod.def;
    else break;
  }
  return def;
}

/** Whether a field's schema takes a string value (a string, an enum or literal of strings, a union with one). */
function takesText(schema: unknown): boolean {
  const def = unwrap(schema);
  if (!def) return false;
  switch (def.type) {
    case 'string':
    case 'template_literal':
      return true;
    case 'enum':
      return Object.values(def.entries as Record<string, unknown>).some((v) => typeof v === 'string');
    case 'literal':
      return (def.values as unknown[]).some((v) => typeof v === 'string');
    case 'union':
      return (def.options as unknown[]).some(takesText);
    default:
      return false;
  }
}

const shapeOf = (schema: ObjectSchema | undefined): Record<string, z.ZodType> =>
  (schema?.shape ?? {}) as Record<string, z.ZodType>;

/**
 * Fields to probe. Path and query values always arrive as text over REST, whatever they parse to; a
 * body field (and any field over MCP, whose arguments are JSON) only when its schema takes a string.
 */
function textFields(op: Operation, transport: 'rest' | 'json'): TextField[] {
  const fields: TextField[] = [];
  for (const where of ['params', 'query', 'body'] as const) {
    for (const [name, schema] of Object.entries(shapeOf(op[where]))) {
      if ((transport === 'rest' && where !== 'body') || takesText(schema)) fields.push({ where, name });
    }
  }
  return fields;
}

const reachable = (op: Operation) => op.stability !== 'coming_soon';
const publicOps = () => h.registry.all().filter((op) => reachable(op) && op.visibility === 'public');

/** Path values for every placeholder: harmless text, except the probed one. */
function pathWith(op: Operation, probe?: { name: string; text: string }): string {
  const params = Object.fromEntries([...op.path.matchAll(/\{(\w+)\}/g)].map((m) => [m[1] as string, 'probe']));
  if (probe) params[probe.name] = probe.text;
  return pathFor(op, params);
}

/** What went wrong with a refusal, or undefined when it is the expected 400 naming `field` with `code`. */
function refusalProblem(status: number, body: unknown, field: string, code: string): string | undefined {
  const error = (body as { error?: { code?: string; details?: { fields?: { field: string; code: string }[] } } })
    ?.error;
  if (status !== 400 || error?.code !== 'invalid_argument') return `${status} ${JSON.stringify(body).slice(0, 300)}`;
  const named = error.details?.fields?.find((f) => f.field === field);
  if (!named || named.code !== code) return `400 without ${field} (${code}): ${JSON.stringify(error.details)}`;
  return undefined;
}

function expectNoFailures(failures: string[], probed: number): void {
  // The probe reached something: a registry that offered no text field would make this test vacuous.
  expect(probed).toBeGreaterThan(50);
  expect(failures, failures.join('\n')).toEqual([]);
}

describe('text the database cannot store is refused at the boundary, for every operation', () => {
  it('REST: every body field that takes text, every path segment and every query value', async () => {
    const failures: string[] = [];
    let probed = 0;
    for (const op of publicOps()) {
      for (const field of textFields(op, 'rest')) {
        for (const bad of BAD_TEXTS) {
          // A URL carries UTF-8: a lone surrogate has no encoding there (MCP below sends it as JSON).
          if (field.where !== 'body' && bad.code === 'unpaired_surrogate') continue;
          probed++;
          let res: TestResponse;
          if (field.where === 'params') {
            res = await h.request(op.method.toUpperCase(), pathWith(op, { name: field.name, text: bad.text }), {
              bearer,
              ...(op.body ? { body: {} } : {}),
            });
          } else if (field.where === 'query') {
            res = await h.request(op.method.toUpperCase(), pathWith(op), {
              bearer,
              query: { [field.name]: bad.text },
              ...(op.body ? { body: {} } : {}),
            });
          } else {
            res = await h.request(op.method.toUpperCase(), pathWith(op), { bearer, body: { [field.name]: bad.text } });
          }
          const problem = refusalProblem(res.status, res.body, field.name, bad.code);
          if (problem) failures.push(`${op.id} ${field.where}.${field.name} with ${bad.label}: ${problem}`);
        }
      }
    }
    expectNoFailures(failures, probed);
  });

  it('MCP: every argument that takes text, on every tool action', async () => {
    const failures: string[] = [];
    let probed = 0;
    for (const op of publicOps().filter((o) => o.mcp)) {
      for (const field of textFields(op, 'json')) {
        for (const bad of BAD_TEXTS) {
          probed++;
          const res = await h.request('POST', '/mcp', {
            bearer,
            headers: { accept: 'application/json, text/event-stream' },
            body: {
              jsonrpc: '2.0',
              id: 1,
              method: 'tools/call',
              params: { name: op.mcp?.tool, arguments: { action: op.mcp?.action, [field.name]: bad.text } },
            },
          });
          const result = (res.body as { result?: { isError?: boolean; structuredContent?: unknown } }).result;
          const problem =
            result?.isError === true
              ? refusalProblem(400, result.structuredContent, field.name, bad.code)
              : `not a tool error: ${res.status} ${res.text.slice(0, 300)}`;
          if (problem) failures.push(`${op.id} ${field.name} with ${bad.label}: ${problem}`);
        }
      }
    }
    expectNoFailures(failures, probed);
  });

  it("in-process: an agent's tool call (origin run) and the console's own calls (console operations)", async () => {
    const failures: string[] = [];
    let probed = 0;
    for (const op of h.registry.all().filter(reachable)) {
      const origin = op.visibility === 'console' ? 'console' : 'run';
      const caller: Caller = {
        workspaceId: ws.id,
        workspaceName: ws.name,
        userId: ws.admin.userId,
        email: ws.admin.email,
        role: 'admin',
        scopes: new Set(SCOPES),
        authMethod: origin === 'console' ? 'console' : 'oauth',
        credentialId: 'storable-text-test',
        bundle: null,
      };
      const scope: InvocationScope = {
        registry: h.registry,
        services: h.services,
        caller,
        correlationId: 'storable-text-test',
        signal: new AbortController().signal,
        origin,
      };
      for (const field of textFields(op, 'json')) {
        for (const bad of BAD_TEXTS) {
          probed++;
          try {
            await invokeOperation(scope, op.id, { [field.name]: bad.text });
            failures.push(`${op.id} ${field.name} with ${bad.label}: accepted`);
          } catch (error) {
            const problem = isApiError(error)
              ? refusalProblem(error.status, error.toEnvelope(), field.name, bad.code)
              : `threw ${String(error)}`;
            if (problem) failures.push(`${op.id} ${field.name} with ${bad.label}: ${problem}`);
          }
        }
      }
    }
    expectNoFailures(failures, probed);
  });

  it('a JSON null body where an operation takes an object body is 400 naming the body, on every such operation', async () => {
    const failures: string[] = [];
    let probed = 0;
    for (const op of publicOps().filter((o) => o.body)) {
      probed++;
      const res = await h.request(op.method.toUpperCase(), pathWith(op), { bearer, body: 'null' });
      const problem = refusalProblem(res.status, res.body, 'body', 'invalid_type');
      if (problem) failures.push(`${op.id}: ${problem}`);
    }
    expect(probed).toBeGreaterThan(20);
    expect(failures, failures.join('\n')).toEqual([]);
  });

  it('names a nested field by its dotted path, and a bad field name by itself, made visible', async () => {
    const evalRun = await h.request('POST', '/evals/run', { bearer, body: { inputs: { message: 'Hi\u0000there' } } });
    expect(evalRun.status, evalRun.text).toBe(400);
    expect(evalRun.body.error.details.fields).toEqual([
      {
        field: 'inputs.message',
        code: 'nul_character',
        problem: 'contains a NUL character (U+0000), which cannot be stored',
      },
    ]);
    const search = await h.request('POST', '/search/query', {
      bearer,
      body: { surface: 'deals', filters: [{ field: 'stage', op: 'in', value: ['proposal', 'x\udc00'] }] },
    });
    expect(search.status, search.text).toBe(400);
    expect(search.body.error.details.fields).toMatchObject([
      { field: 'filters.0.value.1', code: 'unpaired_surrogate' },
    ]);
    expect(search.body.error.message).toBe(
      'Invalid request: filters.0.value.1: contains an unpaired UTF-16 surrogate (not valid Unicode text), which cannot be stored',
    );
    const key = await h.request('POST', '/agents', { bearer, body: { name: 'n', prompt: 'p', 'bad\u0000': 1 } });
    expect(key.status, key.text).toBe(400);
    expect(key.body.error.details.fields).toMatchObject([{ field: 'bad\\u0000', code: 'nul_character' }]);
  });

  it('the routes that are not operations refuse it too, each in its own format, never with a 500', async () => {
    const form = (fields: Record<string, string>) => ({
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields).toString(),
    });
    const oauthJson = async (res: Response, label: string) => {
      expect(res.status, label).toBe(400);
      const body = (await res.json()) as { error: string; error_description: string };
      expect(body.error, label).toBe('invalid_request');
      return body.error_description;
    };
    const prefix = '/api/platform/v1';
    expect(
      await oauthJson(
        await h.fetch(
          `${prefix}/oauth/token`,
          form({ grant_type: 'authorization_code', code: 'a\u0000b', client_id: 'c' }),
        ),
        'token',
      ),
    ).toContain('code: contains a NUL character');
    expect(
      await oauthJson(await h.fetch(`${prefix}/oauth/revoke`, form({ token: 'x\u0000', client_id: 'c' })), 'revoke'),
    ).toContain('token:');
    expect(
      await oauthJson(
        await h.fetch(`${prefix}/oauth/register`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ client_name: 'x\udfff', redirect_uris: ['http://127.0.0.1/cb'] }),
        }),
        'register',
      ),
    ).toContain('client_name: contains an unpaired UTF-16 surrogate');

    const consent = await h.fetch(`${prefix}/oauth/authorize?client_id=a%00b&response_type=code`);
    expect(consent.status).toBe(400);
    expect(consent.headers.get('content-type')).toContain('text/html');
    expect(await consent.text()).toContain('client_id: contains a NUL character');

    for (const request of [
      new Request(`${h.services.config.publicUrl}/console/sign-in/link?token=a%00b`),
      new Request(`${h.services.config.publicUrl}/console/sign-in/link`, {
        ...form({ token: 'a\u0000b' }),
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: h.services.config.publicUrl },
      }),
    ]) {
      const page = await h.fetch(request);
      expect(page.status, `${request.method} ${request.url}`).toBe(400);
      expect(await page.text()).toContain('token: contains a NUL character');
    }

    const callback = await h.request('GET', '/connections/oauth/callback', { query: { state: 'a\u0000b', code: 'c' } });
    expect(callback.status, callback.text).toBe(400);
    expect(callback.body.error).toMatchObject({
      code: 'invalid_argument',
      details: { fields: [expect.objectContaining({ field: 'state', code: 'nul_character' })] },
    });
  });

  it('the routes that are not operations refuse a body over 1 MiB (read no further), each in its own format', async () => {
    const prefix = '/api/platform/v1';
    const origin = h.services.config.publicUrl;
    // Form fields of 1 MiB and one byte more, each of its own name.
    const formOf = (bytes: number) => {
      let text = '';
      for (let i = 0; text.length < bytes; i++) text += `${i === 0 ? '' : '&'}f${i}=`;
      return text.slice(0, bytes);
    };
    const over = formOf(1_048_577);
    const post = (path: string, body: string, type = 'application/x-www-form-urlencoded') =>
      h.fetch(new Request(`${origin}${path}`, { method: 'POST', headers: { 'content-type': type, origin }, body }));

    const page = await post('/console/sign-in/link', over);
    expect(page.status).toBe(400);
    expect(await page.text()).toContain('body: is over 1048576 bytes');
    for (const [path, body, type] of [
      [`${prefix}/oauth/token`, over, 'application/x-www-form-urlencoded'],
      [`${prefix}/oauth/register`, `{"client_name":"${'x'.repeat(1_048_576)}"}`, 'application/json'],
    ] as const) {
      const res = await post(path, body, type);
      expect(res.status, path).toBe(400);
      expect(await res.json(), path).toMatchObject({
        error: 'invalid_request',
        error_description: expect.stringContaining('body: is over 1048576 bytes'),
      });
    }
    // Exactly the limit is read and judged as any other form.
    const atLimit = await post('/console/sign-in/link', formOf(1_048_576));
    expect(await atLimit.text()).not.toContain('is over 1048576 bytes');
  });

  it("judges multipart form fields as it judges the others: console and OAuth forms, an upload's fields and file name", async () => {
    const origin = h.services.config.publicUrl;
    const prefix = '/api/platform/v1';
    const multipart = (fields: Record<string, string>) => {
      const form = new FormData();
      for (const [name, value] of Object.entries(fields)) form.append(name, value);
      return form;
    };
    const page = await h.fetch(
      new Request(`${origin}/console/sign-in/link`, {
        method: 'POST',
        headers: { origin },
        body: multipart({ token: 'a\u0000b' }),
      }),
    );
    expect(page.status).toBe(400);
    expect(await page.text()).toContain('token: contains a NUL character');
    const token = await h.fetch(`${prefix}/oauth/token`, {
      method: 'POST',
      body: multipart({ grant_type: 'authorization_code', code: 'a\u0000b', client_id: 'c' }),
    });
    expect(token.status).toBe(400);
    expect(await token.json()).toMatchObject({
      error: 'invalid_request',
      error_description: expect.stringContaining('code: contains a NUL character'),
    });

    const upload = (fields: Record<string, string>, filename: string) => {
      const form = multipart(fields);
      form.append('file', new Blob(['# Handbook\n\nSupport hours: 9-17.\n'], { type: 'text/markdown' }), filename);
      return h.fetch(`${prefix}/knowledge-base`, {
        method: 'POST',
        headers: { authorization: `Bearer ${bearer}` },
        body: form,
      });
    };
    for (const [label, res, field] of [
      ['a text field', await upload({ title: 'Hand\u0000book' }, 'handbook.md'), 'title'],
      ['a field name', await upload({ 'ti\u0000tle': 'Handbook' }, 'handbook.md'), 'ti\\u0000tle'],
      ['the file name', await upload({}, 'hand\u0000book.md'), 'file'],
    ] as const) {
      const body = (await res.json()) as unknown;
      expect(refusalProblem(res.status, body, field, 'nul_character'), label).toBeUndefined();
    }
    const stored = await h.request('GET', '/knowledge-base', { bearer });
    expect(JSON.stringify(stored.body)).not.toContain('book.md');
  });

  it('judges every form field, one named __proto__ included', async () => {
    const origin = h.services.config.publicUrl;
    const page = await h.fetch(
      new Request(`${origin}/console/sign-in/link`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin },
        body: '__proto__=a%00b',
      }),
    );
    expect(page.status).toBe(400);
    expect(await page.text()).toContain('__proto__: contains a NUL character');
  });

  it('keeps well-formed text whole: astral characters (a surrogate pair) and other control characters pass', () => {
    expect(findUnstorableText({ a: 'emoji 😀 and 𝄞', b: ['tab\tnew\nline\u0001'], c: { d: '\ud83d\ude00' } })).toEqual(
      [],
    );
    expect(findUnstorableText({ a: ['ok', { b: '\ud83d' }] })).toEqual([
      expect.objectContaining({ field: 'a.1.b', code: 'unpaired_surrogate' }),
    ]);
  });
});
