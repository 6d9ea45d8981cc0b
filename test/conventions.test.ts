import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_PREFIX } from '../functions/http/env.js';
import { ERROR_STATUS, type ErrorCode } from '../platform/errors.js';
import { createHarness, type Harness, type SeededWorkspace, type TestResponse } from './support/harness.js';
import { THING_IDS, withTestOperations } from './support/test-operations.js';

let h: Harness;
let ws: SeededWorkspace;
let key: string;

beforeAll(async () => {
  h = await createHarness({ operations: withTestOperations });
  ws = await h.seedWorkspace();
  key = ws.admin.key;
});
afterAll(async () => h.close());

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The error envelope and the correlation header, which every failure must carry. */
function expectEnvelope(res: TestResponse<any>, status: number, code: string): Record<string, any> {
  expect(res.status, res.text).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  expect(res.headers.get('x-correlation-id')).toBeTruthy();
  expect(Object.keys(res.body)).toEqual(['error']);
  expect(res.body.error).toMatchObject({ code, message: expect.any(String) });
  expect(Object.keys(res.body.error).every((k) => ['code', 'message', 'details'].includes(k))).toBe(true);
  return res.body.error;
}

const fieldsOf = (error: Record<string, any>): Array<Record<string, any>> => error.details?.fields ?? [];
const fieldNamed = (error: Record<string, any>, field: string) => fieldsOf(error).find((f) => f.field === field);

const rawPost = (path: string, body: BodyInit, headers: Record<string, string> = {}) =>
  h.fetch(`${API_PREFIX}${path}`, { method: 'POST', headers: { 'x-api-key': key, ...headers }, body });

async function asTest(res: Response): Promise<TestResponse<any>> {
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // leave as text
  }
  return { status: res.status, headers: res.headers, body, text };
}

describe('success bodies', () => {
  it('wraps every JSON success in {data} and nothing else', async () => {
    for (const [method, path, body, status] of [
      ['GET', '/setup/status', undefined, 200],
      ['GET', '/testing/things', undefined, 200],
      ['GET', `/testing/things/${THING_IDS[0]}`, undefined, 200],
      ['POST', '/testing/echo', { name: 'n', kind: 'alpha' }, 201],
      ['GET', '/testing/static-catalog', undefined, 200],
    ] as const) {
      const res = await h.request(method, path, { key, ...(body ? { body } : {}) });
      expect(res.status, `${method} ${path}: ${res.text}`).toBe(status);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(Object.keys(res.body)).toEqual(['data']);
      expect(res.headers.get('x-correlation-id')).toBeTruthy();
    }
  });

  it('returns the validated input to the handler (path, query, body merged)', async () => {
    const res = await h.request('POST', '/testing/echo', {
      key,
      body: { name: 'n', kind: 'beta', items: [{ label: 'a', weight: 2 }] },
    });
    expect(res.body).toEqual({ data: { echoed: { name: 'n', kind: 'beta', items: [{ label: 'a', weight: 2 }] } } });
    const thing = await h.request('GET', `/testing/things/${THING_IDS[1]}`, { key });
    expect(thing.body.data).toEqual({ id: THING_IDS[1], label: 'thing 2' });
  });
});

describe('static outputs', () => {
  it('serves a frozen answer in its checked form (schema defaults applied), the same on every call and over MCP', async () => {
    const expected = {
      kinds: [
        { name: 'call', label: 'Call' },
        { name: 'email', label: 'unnamed' },
      ],
    };
    for (let call = 0; call < 3; call++) {
      const res = await h.request('GET', '/testing/static-catalog', { key });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ data: expected });
    }
    const mcp = await h.fetch(`${API_PREFIX}/mcp`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'testing', arguments: { action: 'static_catalog' } },
      }),
    });
    expect(await mcp.text()).toContain(JSON.stringify(expected).slice(1, -1));
  });
});

describe('X-Correlation-Id', () => {
  it('echoes a well-formed inbound id, on successes and on errors', async () => {
    for (const path of ['/setup/status', '/testing/crash', '/no/such/route']) {
      const res = await h.request('GET', path, { key, headers: { 'X-Correlation-Id': 'req-abc.123:x_y' } });
      expect(res.headers.get('x-correlation-id'), path).toBe('req-abc.123:x_y');
    }
  });

  it.each([
    ['with spaces', 'has some spaces'],
    ['300 characters', 'a'.repeat(300)],
    ['a leading dash', '-abc'],
    ['a newline-free but odd charset', 'abc<script>'],
  ])('replaces a malformed inbound id (%s) with a generated one', async (_label, inbound) => {
    const res = await h.request('GET', '/setup/status', { key, headers: { 'X-Correlation-Id': inbound } });
    const id = res.headers.get('x-correlation-id');
    expect(id).not.toBe(inbound);
    expect(id).toMatch(UUID);
  });

  it('mints a different id per request when none is sent', async () => {
    const a = await h.request('GET', '/setup/status', { key });
    const b = await h.request('GET', '/setup/status', { key });
    expect(a.headers.get('x-correlation-id')).toMatch(UUID);
    expect(a.headers.get('x-correlation-id')).not.toBe(b.headers.get('x-correlation-id'));
  });

  it('is on 401s, 404s outside the prefix, openapi.json and MCP responses (429s: see rate limits)', async () => {
    const unauth = await h.request('GET', '/setup/status');
    expectEnvelope(unauth, 401, 'unauthenticated');

    const outside = await asTest(await h.fetch('/nowhere', { headers: { 'X-Correlation-Id': 'outside-1' } }));
    expectEnvelope(outside, 404, 'not_found');
    expect(outside.headers.get('x-correlation-id')).toBe('outside-1');

    const doc = await h.fetch(`${API_PREFIX}/openapi.json`);
    expect(doc.headers.get('x-correlation-id')).toMatch(UUID);

    const mcp = await h.fetch(`${API_PREFIX}/mcp`, {
      method: 'POST',
      headers: {
        'x-api-key': key,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'X-Correlation-Id': 'mcp-1',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    });
    expect(mcp.status).toBe(200);
    expect(mcp.headers.get('x-correlation-id')).toBe('mcp-1');
  });
});

describe('rate limits', () => {
  it('renders a per-user 429 in the envelope with Retry-After and the correlation id', async () => {
    const first = await h.request('GET', '/testing/limited', { key: ws.viewer.key });
    expect(first.status).toBe(200);
    const second = await h.request('GET', '/testing/limited', { key: ws.viewer.key });
    const error = expectEnvelope(second, 429, 'rate_limited');
    expect(error.details).toMatchObject({ retry_after_seconds: expect.any(Number), limit: 1, window_seconds: 60 });
    expect(Number(second.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(second.headers.get('x-ratelimit-remaining')).toBe('0');
  });

  it('renders the global per-IP 429 in the envelope too', async () => {
    const tight = await createHarness({
      operations: withTestOperations,
      database: h.database,
      env: { RATE_LIMIT_GLOBAL_PER_MIN: '2' },
    });
    try {
      const headers = { 'x-forwarded-for': '203.0.113.9' };
      for (let i = 0; i < 2; i++)
        expect((await tight.request('GET', '/setup/status', { key, headers })).status).toBe(200);
      const limited = await tight.request('GET', '/setup/status', {
        key,
        headers: { ...headers, 'X-Correlation-Id': 'limited-1' },
      });
      const error = expectEnvelope(limited, 429, 'rate_limited');
      expect(limited.headers.get('x-correlation-id')).toBe('limited-1');
      expect(error.details).toMatchObject({ limit: 2, window_seconds: 60 });
      expect(limited.headers.get('retry-after')).toBeTruthy();
    } finally {
      await tight.close();
    }
  });
});

describe('routing', () => {
  it('answers an unknown path under the prefix with 404 not_found', async () => {
    const res = await h.request('GET', '/no/such/route', { key });
    const error = expectEnvelope(res, 404, 'not_found');
    expect(error.details).toMatchObject({ method: 'GET', path: `${API_PREFIX}/no/such/route` });
  });

  it('answers an unknown path outside the prefix with 404 not_found', async () => {
    // `GET /` is the front door's landing page (test/front-door.test.ts), not an unknown path.
    for (const path of ['/api', '/api/platform/v2/setup/status', '/favicon.ico', '/nowhere']) {
      expectEnvelope(await asTest(await h.fetch(path)), 404, 'not_found');
    }
  });

  // Decision: a wrong method on a known path is 404 not_found (no route for that method and path),
  // in the envelope. The error vocabulary has no 405 code, and HEAD/OPTIONS are not offered.
  it('answers a wrong method on a known path with 404 not_found in the envelope', async () => {
    expectEnvelope(await h.request('POST', '/setup/status', { key, body: {} }), 404, 'not_found');
    expectEnvelope(await h.request('DELETE', '/testing/echo', { key }), 404, 'not_found');
    expectEnvelope(await h.request('PUT', `/testing/things/${THING_IDS[0]}`, { key, body: {} }), 404, 'not_found');
  });
});

describe('request bodies', () => {
  it('rejects malformed JSON with 400 invalid_argument', async () => {
    const res = await asTest(await rawPost('/testing/echo', '{"name": "n", ', { 'content-type': 'application/json' }));
    const error = expectEnvelope(res, 400, 'invalid_argument');
    expect(error.details).toMatchObject({ body: 'malformed_json' });
  });

  it('rejects a body with a non-JSON content type with 400 invalid_argument', async () => {
    const res = await asTest(
      await rawPost('/testing/echo', JSON.stringify({ name: 'n', kind: 'alpha' }), { 'content-type': 'text/plain' }),
    );
    const error = expectEnvelope(res, 400, 'invalid_argument');
    expect(error.details).toMatchObject({ content_type: 'text/plain', expected: 'application/json' });
  });

  it('accepts application/json with a charset and +json media types', async () => {
    for (const type of ['application/json; charset=utf-8', 'application/merge-patch+json']) {
      const res = await rawPost('/testing/echo', JSON.stringify({ name: 'n', kind: 'alpha' }), {
        'content-type': type,
      });
      expect(res.status, type).toBe(201);
    }
  });

  it('rejects a body over 1 MiB with 400 invalid_argument', async () => {
    const big = JSON.stringify({ name: 'n', kind: 'alpha', note: 'x'.repeat(1_048_576) });
    const error = expectEnvelope(
      await asTest(await rawPost('/testing/echo', big, { 'content-type': 'application/json' })),
      400,
      'invalid_argument',
    );
    expect(error.details).toMatchObject({ body: 'too_large', max_bytes: 1_048_576 });
  });

  it('measures the 1 MiB limit in bytes, not characters', async () => {
    // 600,000 two-byte characters: 1.2 MB on the wire, 600,000 UTF-16 code units.
    const big = JSON.stringify({ name: 'n', kind: 'alpha', note: 'é'.repeat(600_000) });
    const error = expectEnvelope(
      await asTest(await rawPost('/testing/echo', big, { 'content-type': 'application/json' })),
      400,
      'invalid_argument',
    );
    expect(error.details).toMatchObject({ body: 'too_large' });
  });

  it('rejects a declared Content-Length over 1 MiB before reading the body', async () => {
    const error = expectEnvelope(
      await asTest(
        await rawPost('/testing/echo', '{}', {
          'content-type': 'application/json',
          'content-length': String(2_000_000),
        }),
      ),
      400,
      'invalid_argument',
    );
    expect(error.details).toMatchObject({ body: 'too_large' });
  });

  it('names each missing required field when the body is empty', async () => {
    const res = await asTest(
      await h.fetch(`${API_PREFIX}/testing/echo`, { method: 'POST', headers: { 'x-api-key': key } }),
    );
    const error = expectEnvelope(res, 400, 'invalid_argument');
    expect(
      fieldsOf(error)
        .map((f) => f.field)
        .sort(),
    ).toEqual(['kind', 'name']);
    for (const f of fieldsOf(error)) expect(f.problem).toBe('required');
  });

  it('names each missing required field when the body is {}', async () => {
    const error = expectEnvelope(await h.request('POST', '/testing/echo', { key, body: {} }), 400, 'invalid_argument');
    expect(
      fieldsOf(error)
        .map((f) => f.field)
        .sort(),
    ).toEqual(['kind', 'name']);
    expect(error.message).toMatch(/required/);
  });

  it('tells a wrong type or value from a missing field', async () => {
    const error = expectEnvelope(
      await h.request('POST', '/testing/echo', { key, body: { name: 123, kind: null } }),
      400,
      'invalid_argument',
    );
    expect(fieldNamed(error, 'name')?.problem).toMatch(/expected string, received number/);
    expect(fieldNamed(error, 'kind')).toMatchObject({ allowed: ['alpha', 'beta'] });
    expect(fieldNamed(error, 'kind')?.problem).not.toBe('required');
  });

  it('rejects a JSON body that is not an object', async () => {
    for (const body of ['[]', '"text"', '42']) {
      const res = await asTest(await rawPost('/testing/echo', body, { 'content-type': 'application/json' }));
      expectEnvelope(res, 400, 'invalid_argument');
    }
  });

  it('rejects an unknown body field and lists the allowed set', async () => {
    const error = expectEnvelope(
      await h.request('POST', '/testing/echo', { key, body: { name: 'n', kind: 'alpha', colour: 'red' } }),
      400,
      'invalid_argument',
    );
    expect(fieldNamed(error, 'colour')).toMatchObject({
      code: 'unknown_field',
      allowed: ['name', 'kind', 'items', 'note'],
    });
    expect(error.message).toContain('colour');
  });

  it('rejects an unknown field nested in an array of objects, with that object’s allowed set', async () => {
    const body = { name: 'n', kind: 'alpha', items: [{ label: 'ok' }, { label: 'x', colour: 'red' }] };
    const error = expectEnvelope(await h.request('POST', '/testing/echo', { key, body }), 400, 'invalid_argument');
    expect(fieldsOf(error)).toEqual([
      expect.objectContaining({ field: 'items.1.colour', code: 'unknown_field', allowed: ['label', 'weight'] }),
    ]);
  });

  it('lists the allowed values of an enum', async () => {
    const error = expectEnvelope(
      await h.request('POST', '/testing/echo', { key, body: { name: 'n', kind: 'gamma' } }),
      400,
      'invalid_argument',
    );
    expect(fieldNamed(error, 'kind')).toMatchObject({ allowed: ['alpha', 'beta'] });
  });

  it('reports several problems at once, each with its dotted path', async () => {
    const body = { name: '', kind: 'gamma', items: [{ weight: 'heavy' }] };
    const error = expectEnvelope(await h.request('POST', '/testing/echo', { key, body }), 400, 'invalid_argument');
    expect(
      fieldsOf(error)
        .map((f) => f.field)
        .sort(),
    ).toEqual(['items.0.label', 'items.0.weight', 'kind', 'name']);
    expect(error.message).toMatch(/and 3 more/);
  });
});

describe('path and query parameters', () => {
  it('coerces query strings to the declared types and applies defaults', async () => {
    const res = await h.request('GET', '/testing/things', { key, query: { limit: '1', offset: '1', order: 'desc' } });
    expect(res.body.data).toEqual({ rows: [{ id: THING_IDS[0], label: 'thing 1' }], limit: 1, offset: 1, total: 2 });
    const defaults = await h.request('GET', '/testing/things', { key });
    expect(defaults.body.data).toMatchObject({ limit: 50, offset: 0, total: 2 });
  });

  it.each([
    ['limit', 'abc'],
    ['limit', '5000'],
    ['limit', '0'],
    ['limit', '1.5'],
    ['offset', '-1'],
  ])('names the field of a bad query value (%s=%s)', async (field, value) => {
    const error = expectEnvelope(
      await h.request('GET', '/testing/things', { key, query: { [field]: value } }),
      400,
      'invalid_argument',
    );
    expect(fieldsOf(error).map((f) => f.field)).toEqual([field]);
    expect(error.message).toContain(field);
  });

  it('lists the allowed values of an enum query parameter', async () => {
    const error = expectEnvelope(
      await h.request('GET', '/testing/things', { key, query: { order: 'sideways' } }),
      400,
      'invalid_argument',
    );
    expect(fieldNamed(error, 'order')).toMatchObject({ allowed: ['asc', 'desc'] });
  });

  it('names a malformed path parameter', async () => {
    const error = expectEnvelope(
      await h.request('GET', '/testing/things/not-a-uuid', { key }),
      400,
      'invalid_argument',
    );
    expect(fieldsOf(error).map((f) => f.field)).toEqual(['id']);
  });

  it('answers a well-formed but unknown id with 404', async () => {
    expectEnvelope(
      await h.request('GET', '/testing/things/0193a1b2-0000-7000-8000-00000000ffff', { key }),
      404,
      'not_found',
    );
  });
});

describe('failures', () => {
  it('renders a plain Error as 500 internal without leaking its text or stack', async () => {
    const res = await h.request('GET', '/testing/crash', { key });
    const error = expectEnvelope(res, 500, 'internal');
    expect(error.details).toBeUndefined();
    expect(error.message).toMatch(/unexpected/i);
    for (const leak of ['hunter2', 'postgres', 'db.internal', 'at ', 'Error:', '.ts'])
      expect(res.text).not.toContain(leak);
  });

  it('renders an output that breaks its schema as 500 internal', async () => {
    const res = await h.request('GET', '/testing/bad-output', { key });
    expectEnvelope(res, 500, 'internal');
    expect(res.text).not.toContain('not a number');
  });

  it('refuses a frozen (static) output that breaks its schema on every call, not just the first', async () => {
    for (let call = 0; call < 2; call++) {
      const res = await h.request('GET', '/testing/static-bad-output', { key });
      expectEnvelope(res, 500, 'internal');
      expect(res.text).not.toContain('not a number');
    }
  });

  it('masks secrets in details, recursively, with a _masked sentinel', async () => {
    const error = expectEnvelope(await h.request('GET', '/testing/secret', { key }), 400, 'invalid_argument');
    expect(error.message).toBe('x');
    expect(error.details).toEqual({
      api_key: '[MASKED]',
      api_key_masked: true,
      nested: { client_secret: '[MASKED]', client_secret_masked: true, visible: 'ok' },
      list: [{ password: '[MASKED]', password_masked: true }],
      plain: 'kept',
    });
  });

  const codes = Object.entries(ERROR_STATUS) as Array<[ErrorCode, number]>;
  it.each(codes)('maps %s to HTTP %i in the envelope', async (code, status) => {
    const res = await h.request('GET', `/testing/fail/${code}`, { key });
    const error = expectEnvelope(res, status, code);
    expect(error).toEqual({ code, message: `forced ${code}`, details: { forced: code } });
  });

  it('refuses a console-only operation with 403 not_on_public_api', async () => {
    expectEnvelope(await h.request('GET', '/testing/console-only', { key }), 403, 'not_on_public_api');
  });

  it('answers a coming-soon (not live) operation with 404 not_found, like an unknown route', async () => {
    const error = expectEnvelope(await h.request('POST', '/testing/coming-soon', { key, body: {} }), 404, 'not_found');
    expect(error.details).toEqual({ operation: 'testing.coming_soon' });
  });

  it('refuses a missing scope with 403 scope_denied and a low role with 403 insufficient_role', async () => {
    const scope = expectEnvelope(
      await h.request('GET', '/testing/needs-scope', { key: ws.editor.key }),
      403,
      'scope_denied',
    );
    expect(scope.details).toMatchObject({ missing_scopes: ['platform:write'] });
    const role = expectEnvelope(
      await h.request('GET', '/testing/admin-only', { key: ws.editor.key }),
      403,
      'insufficient_role',
    );
    expect(role.details).toMatchObject({ required_role: 'admin', role: 'editor' });
  });
});
