import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness, type SeededWorkspace } from './support/harness.js';

let h: Harness;
let ws: SeededWorkspace;

beforeAll(async () => {
  h = await createHarness();
  ws = await h.seedWorkspace('Acme Sales');
});
afterAll(async () => h.close());

describe('GET /setup/status', () => {
  it('describes the workspace, the caller and whether they may optimize', async () => {
    const res = await h.request('GET', '/setup/status', { key: ws.admin.key });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-correlation-id')).toBeTruthy();
    expect(res.body.data).toMatchObject({
      workspace: { id: ws.id, name: 'Acme Sales' },
      caller: { email: ws.admin.email, role: 'admin', bundle: 'full_admin' },
      auth_method: 'api_key',
      optimize: { allowed: true, blocker: null, quota: { limit: 1000, used: 0, remaining: 1000 } },
    });
    expect(res.body.data.optimize.quota.resets_at).toMatch(/^\d{4}-\d{2}-01T00:00:00.000Z$/);
  });

  it('names role_too_low for a viewer whose key has the scope', async () => {
    const res = await h.request('GET', '/setup/status', { key: ws.viewer.key });
    expect(res.body.data.optimize).toMatchObject({ allowed: false, blocker: 'role_too_low' });
  });

  it('names missing_scope for a read-only key, before the role', async () => {
    const { key } = await ws.keyFor(ws.viewer, 'read_only');
    const res = await h.request('GET', '/setup/status', { key });
    expect(res.body.data.optimize).toMatchObject({ allowed: false, blocker: 'missing_scope' });
    expect(res.body.data.caller.scopes).toEqual(['data:read']);
  });

  it('reports oauth as the auth method for an access token', async () => {
    const token = await ws.tokenFor(ws.editor, ['messages:execute']);
    const res = await h.request('GET', '/setup/status', { bearer: token });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      auth_method: 'oauth',
      caller: { role: 'editor' },
      optimize: { allowed: true },
    });
  });
});
