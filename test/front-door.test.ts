import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GUIDES } from '../functions/guides.js';
import { noStaticAssets } from '../platform/assets/port.js';
import { browse, signInWithLink } from './support/console-session.js';
import { createHarness, type Harness, type SeededWorkspace } from './support/harness.js';

/** The front door: the landing page, the API reference and the API root's pointers. */
let h: Harness;
let ws: SeededWorkspace;
beforeAll(async () => {
  h = await createHarness();
  ws = await h.seedWorkspace('Front Door');
});
afterAll(async () => h.close());

describe('the front door', () => {
  it('GET / links the console, the API reference, the OpenAPI document and the MCP endpoint', async () => {
    const res = await h.fetch('/');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
    const page = await res.text();
    const base = h.services.config.publicUrl;
    for (const href of [
      `${base}/console`,
      `${base}/docs`,
      `${base}/docs/guides`,
      `${base}/api/platform/v1/openapi.json`,
    ])
      expect(page).toContain(`href="${href}"`);
    expect(page).toContain(`${base}/api/platform/v1/mcp`);
  });

  it('/docs is the interactive reference: its renderer served from here, its scripts under the page nonce, the guides linked', async () => {
    const res = await h.fetch('/docs');
    expect(res.status).toBe(200);
    const csp = res.headers.get('content-security-policy') ?? '';
    const nonce = /script-src 'nonce-([A-Za-z0-9]+)'/.exec(csp)?.[1];
    expect(nonce).toBeTruthy();
    expect(csp).not.toContain('unsafe-eval');
    expect(csp).toContain("connect-src 'self'");
    const page = await res.text();
    const scripts = [...page.matchAll(/<script\b[^>]*>/g)].map((m) => m[0]);
    expect(scripts).toHaveLength(2);
    for (const tag of scripts) expect(tag).toContain(`nonce="${nonce}"`);
    expect(scripts[0]).toContain('src="/docs/assets/api-reference.js"');
    expect(page).toContain(`"url":"${h.services.config.publicUrl}/api/platform/v1/openapi.json"`);
    expect(page).toContain('href="/docs/plain"');
    expect(page).toContain(`href="${h.services.config.publicUrl}/docs/guides"`);

    const script = await h.fetch('/docs/assets/api-reference.js');
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(await script.text()).toContain('createApiReference');

    // A browser asks for it compressed: gzip, and the same script once inflated.
    const gzipped = await h.fetch(
      new Request('http://localhost/docs/assets/api-reference.js', { headers: { 'Accept-Encoding': 'gzip' } }),
    );
    expect(gzipped.headers.get('content-encoding')).toBe('gzip');
    const packed = new Uint8Array(await gzipped.arrayBuffer());
    expect(packed.byteLength).toBeLessThan(1_500_000);
    expect(gunzipSync(packed).toString('utf8')).toContain('createApiReference');
  });

  it('/docs/plain renders every operation of the OpenAPI document, without any script', async () => {
    const res = await h.fetch('/docs/plain');
    expect(res.status).toBe(200);
    const page = await res.text();
    expect(page).not.toContain('<script');
    const doc = (await (await h.fetch('/api/platform/v1/openapi.json')).json()) as {
      paths: Record<string, Record<string, { operationId: string }>>;
    };
    const operations = Object.entries(doc.paths).flatMap(([path, methods]) =>
      Object.keys(methods).map((m) => `${m.toUpperCase()} ${path}`),
    );
    expect(operations.length).toBeGreaterThan(20);
    for (const op of operations) expect(page).toContain(op);
  });

  it('/docs/plain links each group of operations to its guide section, and the guides index', async () => {
    const page = await (await h.fetch('/docs/plain')).text();
    const base = h.services.config.publicUrl;
    expect(page).toContain(`href="${base}/docs/guides"`);
    expect(page).toContain(`href="${base}/docs/guides/search.md#search">Guide: Search</a>`);
    expect(page).toContain(`href="${base}/docs/guides/webhooks.md#webhooks">Guide: Webhooks</a>`);
  });

  it('/docs/guides lists every guide, and each is served as the text of docs/guides/ in the repository', async () => {
    const index = await h.fetch('/docs/guides');
    expect(index.status).toBe(200);
    const page = await index.text();
    for (const guide of GUIDES) {
      expect(page).toContain(`href="/docs/guides/${guide.page}"`);
      const res = await h.fetch(`/docs/guides/${guide.page}`);
      expect(res.status, guide.page).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8');
      expect(await res.text()).toBe(readFileSync(new URL(`../docs/guides/${guide.page}`, import.meta.url), 'utf8'));
    }
  });

  it('/docs/guides serves only the listed guides: another name, or a path out of the folder, is 404', async () => {
    for (const path of [
      '/docs/guides/no-such-guide.md',
      '/docs/guides/..%2F..%2Fpackage.json',
      '/docs/guides/..%2FREADME.md',
    ]) {
      const res = await h.fetch(path);
      expect(res.status, path).toBe(404);
      expect(await res.text()).not.toContain('"name"');
    }
  });

  it('a runtime without the repository (a Worker) answers a guide with 404 naming its place in the repository', async () => {
    const installed = h.services.assets;
    h.services.assets = noStaticAssets;
    try {
      const res = await h.fetch('/docs/guides/search.md');
      expect(res.status).toBe(404);
      const body = (await res.json()) as { error: { code: string; details: Record<string, unknown> } };
      expect(body.error.code).toBe('not_found');
      expect(body.error.details.guide).toBe('docs/guides/search.md');
    } finally {
      h.services.assets = installed;
    }
  });

  it("the console's navigation links the guides", async () => {
    const jar = await signInWithLink(h, ws.admin.email);
    const page = await (await browse(h, jar, '/console/keys')).text();
    expect(page).toContain('href="/docs/guides"');
  });

  it('/docs falls back to the server-rendered reference where the runtime has no renderer (a Worker)', async () => {
    const installed = h.services.assets;
    h.services.assets = noStaticAssets;
    try {
      const page = await (await h.fetch('/docs')).text();
      expect(page).not.toContain('<script');
      expect(page).toContain('POST /webhooks');
      expect(page).toContain(`href="${h.services.config.publicUrl}/docs/guides"`);
      expect((await h.fetch('/docs/assets/api-reference.js')).status).toBe(404);
    } finally {
      h.services.assets = installed;
    }
  });

  it('GET /api/platform/v1 without credentials is a 401 envelope whose details point to the console, docs and OpenAPI', async () => {
    const res = await h.request('GET', '');
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('unauthenticated');
    const base = h.services.config.publicUrl;
    expect(res.body.error.details).toEqual({
      console: `${base}/console`,
      docs: `${base}/docs`,
      guides: `${base}/docs/guides`,
      openapi: `${base}/api/platform/v1/openapi.json`,
      mcp: `${base}/api/platform/v1/mcp`,
    });
    expect(res.headers.get('www-authenticate')).toContain('resource_metadata');
    // With a credential the root is what it was: no operation lives there.
    expect((await h.request('GET', '', { key: ws.admin.key })).status).toBe(404);
  });
});
