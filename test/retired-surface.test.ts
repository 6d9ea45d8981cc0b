import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPES } from '../functions/identity/scopes.js';
import { ManualClock } from '../platform/clock.js';
import { newId } from '../platform/ids.js';
import { createHarness, type Harness, type SeededWorkspace } from './support/harness.js';
import { expectError } from './support/security-suite.js';

/**
 * What the spec retired (Versioning 5; CHANGELOG.md, Removed): `POST /search` answers 404 pointing
 * at its successor, and the retired CRM mapping keys are refused on save, each named.
 */

const clock = new ManualClock('2026-11-25T12:00:00.000Z');
let h: Harness;
let ws: SeededWorkspace;

beforeAll(async () => {
  h = await createHarness({ clock });
  ws = await h.seedWorkspace();
});
afterAll(async () => h?.close());

describe('retired surface', () => {
  it('POST /search is 404 not_found naming POST /search/query with mode fuzzy', async () => {
    const res = await h.request('POST', '/search', { key: ws.viewer.key, body: { query: 'pricing' } });
    expectError(res, 404, 'not_found', 'POST /search');
    expect(res.body.error.details).toEqual({
      method: 'POST',
      path: '/api/platform/v1/search',
      retired: true,
      use: { method: 'POST', path: '/api/platform/v1/search/query', mode: 'fuzzy' },
    });
    expect(res.body.error.message).toContain('POST /search/query');
    // Still judged like any route under the prefix: no credential is 401 first.
    expectError(await h.request('POST', '/search', { body: {} }), 401, 'unauthenticated', 'no credential');
    // Other methods on the path stay plain unknown routes.
    const get = await h.request('GET', '/search', { key: ws.viewer.key });
    expectError(get, 404, 'not_found', 'GET /search');
    expect(get.body.error.details).not.toHaveProperty('use');
  });

  it('refuses each retired CRM mapping key on save with 400 invalid_argument naming it', async () => {
    const token = await ws.tokenFor(ws.admin, SCOPES);
    const path = `/connections/${newId()}/crm-recency`;
    for (const key of ['deal_amount_tiers', 'segment_rules', 'default_segment', 'use_crm_segment']) {
      const res = await h.request('PUT', path, { bearer: token, body: { window: 12, [key]: [] } });
      expectError(res, 400, 'invalid_argument', key);
      expect(res.body.error.details.fields).toEqual([
        { field: key, code: 'retired_field', problem: expect.stringContaining(`"${key}" is retired`) },
      ]);
      expect(res.body.error.message).toContain(key);
    }
    // A key that never existed is still plainly unknown, with the allowed set.
    const unknown = await h.request('PUT', path, { bearer: token, body: { window: 12, tiers: [] } });
    expectError(unknown, 400, 'invalid_argument', 'unknown key');
    expect(unknown.body.error.details.fields).toEqual([
      expect.objectContaining({ field: 'tiers', code: 'unknown_field', allowed: ['window'] }),
    ]);
    // The body alone decided: the same save without the retired key reaches the connection (none here: 404).
    expectError(
      await h.request('PUT', path, { bearer: token, body: { window: 12 } }),
      404,
      'not_found',
      'no such connection',
    );
  });
});
