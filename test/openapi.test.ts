import { validate } from '@readme/openapi-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_PREFIX } from '../functions/http/env.js';
import { guideSectionOf } from '../functions/guides.js';
import { allOperations } from '../functions/modules.js';
import { ERROR_CODES } from '../platform/errors.js';
import { createHarness, type Harness } from './support/harness.js';
import { withTestOperations } from './support/test-operations.js';

let h: Harness;
let doc: Record<string, any>;
let response: Response;

beforeAll(async () => {
  h = await createHarness({ operations: withTestOperations });
  // The document is public: no credential needed.
  response = await h.fetch(`${API_PREFIX}/openapi.json`);
  doc = (await response.clone().json()) as Record<string, any>;
});
afterAll(async () => h.close());

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

/** Every operation object in the document with its method and path. */
function operations(): Array<{ method: string; path: string; op: Record<string, any> }> {
  return Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([path, item]) =>
    METHODS.filter((m) => item[m]).map((method) => ({ method, path, op: item[method] })),
  );
}

const byId = (id: string) => operations().find((o) => o.op.operationId === id);

/** Follow a local $ref ("#/components/schemas/Error") to its target. */
function deref(node: Record<string, any>): Record<string, any> {
  if (typeof node?.$ref !== 'string') return node;
  const target = (node.$ref as string)
    .replace(/^#\//, '')
    .split('/')
    .reduce<any>((at, part) => at?.[part.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
  expect(target, node.$ref).toBeDefined();
  return deref(target);
}

describe('GET /openapi.json', () => {
  it('is served raw (not wrapped in data), as JSON, without a credential, with the correlation id', () => {
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(response.headers.get('x-correlation-id')).toBeTruthy();
    expect(doc.data).toBeUndefined();
    expect(Object.keys(doc)).toEqual(expect.arrayContaining(['openapi', 'info', 'servers', 'paths', 'components']));
  });

  it('is OpenAPI 3.1 at version 1.0.0 with the prefixed server URL', () => {
    expect(doc.openapi).toMatch(/^3\.1/);
    expect(doc.info.version).toBe('1.0.0');
    expect(doc.info.title).toBe('Customer Intelligence Platform API');
    expect(doc.servers[0].url).toBe(`${h.services.config.publicUrl}${API_PREFIX}`);
    expect(doc.servers[0].url.endsWith('/api/platform/v1')).toBe(true);
  });

  it('is the same document on every call, with an ETag that answers 304 when it matches', async () => {
    const res = await h.fetch(`${API_PREFIX}/openapi.json`);
    expect(await res.json()).toEqual(doc);
    const etag = res.headers.get('etag') as string;
    expect(etag).toMatch(/^"[0-9a-f]{32}"$/);
    const again = await h.fetch(`${API_PREFIX}/openapi.json`);
    expect(again.headers.get('etag')).toBe(etag);
    const notModified = await h.fetch(`${API_PREFIX}/openapi.json`, {
      headers: { 'if-none-match': `"other", ${etag}` },
    });
    expect(notModified.status).toBe(304);
    expect(await notModified.text()).toBe('');
    expect((await h.fetch(`${API_PREFIX}/openapi.json`, { headers: { 'if-none-match': '"stale"' } })).status).toBe(200);
  });

  it('validates against the OpenAPI 3.1 schema (@readme/openapi-parser)', async () => {
    const result = await validate(structuredClone(doc) as never);
    expect(result.valid ? [] : result.errors.map((e) => e.message)).toEqual([]);
    expect(result.specification).toBe('OpenAPI');
  });
});

describe('operations in the document', () => {
  const published = withTestOperations.filter((op) => op.visibility === 'public' && op.stability !== 'coming_soon');

  it('lists every published operation once, under its method and path, with its operationId', () => {
    expect(published.length).toBeGreaterThan(allOperations.length - 1);
    for (const op of published) {
      const found = byId(op.id);
      expect(found, op.id).toBeDefined();
      expect(found?.method).toBe(op.method);
      expect(found?.path).toBe(op.path);
    }
    const ids = operations().map((o) => o.op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.sort()).toEqual(published.map((op) => op.id).sort());
  });

  it('includes the real setup.status operation', () => {
    expect(byId('setup.status')).toMatchObject({ method: 'get', path: '/setup/status' });
  });

  it('leaves out console-only and coming-soon operations', () => {
    expect(byId('testing.console_only')).toBeUndefined();
    expect(byId('testing.coming_soon')).toBeUndefined();
    expect(doc.paths['/testing/console-only']).toBeUndefined();
    expect(doc.paths['/testing/coming-soon']).toBeUndefined();
  });

  it('carries stability, scopes, minimum role and the MCP binding as x- extensions', () => {
    for (const op of published) {
      const { op: o } = byId(op.id)!;
      expect(o['x-stability'], op.id).toBe(op.stability);
      expect(o['x-scopes'], op.id).toEqual([...op.scopes]);
      expect(o['x-min-role'], op.id).toBe(op.minRole);
      if (op.mcp) expect(o['x-mcp'], op.id).toEqual(op.mcp);
      else expect(o['x-mcp'], op.id).toBeUndefined();
      expect(o.description).toContain(`**Stability:** ${op.stability}`);
    }
    expect(byId('testing.needs_scope')?.op['x-scopes']).toEqual(['platform:write']);
    expect(byId('testing.admin_only')?.op['x-min-role']).toBe('admin');
  });

  it("links every service operation's guide section, in its description and as externalDocs", () => {
    const base = `${h.services.config.publicUrl}/docs/guides`;
    const real = published.filter((op) => allOperations.includes(op));
    expect(real.length).toBeGreaterThan(100);
    for (const op of real) {
      const section = guideSectionOf(op);
      expect(section, op.id).toMatch(/^[a-z-]+\.md#[a-z0-9_-]+$/);
      const { op: o } = byId(op.id)!;
      expect(o.externalDocs, op.id).toEqual({
        description: `Guide: docs/guides/${section}`,
        url: `${base}/${section}`,
      });
      expect(o.description, op.id).toContain(`**Guide:** [docs/guides/${section}](${base}/${section}).`);
    }
    expect(byId('sql.query')?.op.externalDocs.url).toBe(`${base}/sql-query.md#sql-query`);
    expect(doc.info.description).toContain(`[Search](${base}/search.md)`);
    // An operation whose tag has no guide (the test operations) carries no link rather than a broken one.
    expect(byId('testing.needs_scope')?.op.externalDocs).toBeUndefined();
  });

  it('declares the three security schemes and lets every operation use any of them', () => {
    const schemes = doc.components.securitySchemes;
    expect(schemes.ApiKeyHeader).toMatchObject({ type: 'apiKey', in: 'header', name: 'X-API-Key' });
    expect(schemes.Bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(schemes.OAuth2.type).toBe('oauth2');
    const flow = schemes.OAuth2.flows.authorizationCode;
    expect(flow.authorizationUrl).toBe(`${h.services.config.publicUrl}${API_PREFIX}/oauth/authorize`);
    expect(flow.tokenUrl).toBe(`${h.services.config.publicUrl}${API_PREFIX}/oauth/token`);
    expect(Object.keys(flow.scopes)).toEqual(
      expect.arrayContaining(['data:read', 'messages:execute', 'platform:write']),
    );
    for (const { op } of operations()) {
      expect(op.security).toEqual([{ ApiKeyHeader: [] }, { Bearer: [] }, { OAuth2: op['x-scopes'] }]);
    }
  });

  it('wraps each success response schema in data', () => {
    for (const source of published) {
      const { op } = byId(source.id)!;
      const status = String(source.successStatus ?? 200);
      if (source.streamOnly) {
        // A stream_url answers server-sent events only, unwrapped (spec, Conventions 4).
        expect(Object.keys(op.responses[status]?.content ?? {}), source.id).toEqual(['text/event-stream']);
        continue;
      }
      if (source.download) {
        // A file download is the file itself, unwrapped (spec, Conventions 4).
        expect(Object.keys(op.responses[status]?.content ?? {}), source.id).toEqual([source.download.contentType]);
        continue;
      }
      const schema = deref(op.responses[status]?.content?.['application/json']?.schema);
      expect(schema, source.id).toMatchObject({
        type: 'object',
        properties: { data: expect.anything() },
        required: ['data'],
      });
      expect(Object.keys(schema.properties)).toEqual(['data']);
    }
    // A named output schema stays a shared component under data.
    const status = deref(byId('setup.status')!.op.responses['200'].content['application/json'].schema);
    expect(status.properties.data.$ref).toBe('#/components/schemas/SetupStatus');
  });

  it('points every error response at the shared Error envelope', () => {
    const envelope = doc.components.schemas.Error;
    expect(envelope).toMatchObject({ type: 'object', required: ['error'] });
    expect(envelope.properties.error.required).toEqual(expect.arrayContaining(['code', 'message']));
    expect(envelope.properties.error.properties.code.enum).toEqual(ERROR_CODES);
    for (const { op } of operations()) {
      for (const status of ['400', '401', '403', '404', '429', '500']) {
        expect(op.responses[status]?.content?.['application/json']?.schema, `${op.operationId} ${status}`).toEqual({
          $ref: '#/components/schemas/Error',
        });
      }
    }
  });

  it('describes path params as required, query params with their constraints, and strict bodies', () => {
    const thing = byId('testing.get_thing')!.op;
    expect(thing.parameters).toEqual([expect.objectContaining({ name: 'id', in: 'path', required: true })]);
    const list = byId('testing.list_things')!.op;
    const limit = list.parameters.find((p: { name: string }) => p.name === 'limit');
    expect(limit).toMatchObject({ in: 'query' });
    expect(limit.required ?? false).toBe(false);
    expect(limit.schema).toMatchObject({ maximum: 200, minimum: 1, default: 50 });
    const echo = byId('testing.echo')!.op;
    expect(echo.requestBody.required).toBe(true);
    const body = deref(echo.requestBody.content['application/json'].schema);
    expect(body).toMatchObject({ type: 'object', additionalProperties: false, required: ['name', 'kind'] });
    expect(body.properties.kind.enum).toEqual(['alpha', 'beta']);
    expect(body.properties.items.items).toMatchObject({ additionalProperties: false });
  });
});
