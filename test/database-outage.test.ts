import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_PREFIX } from '../functions/http/env.js';
import { ManualClock } from '../platform/clock.js';
import type { LocalTransport } from '../queues/transport/local.js';
import { controlOutages, type Outage } from './support/database-outage.js';
import { createHarness, openTestDatabase, type Harness, type SeededWorkspace } from './support/harness.js';

/**
 * The database going away mid-request: every surface answers 503 dependency_unavailable in the
 * envelope, a write cut in the middle leaves nothing behind, and queued work is retried, not lost.
 */
const clock = new ManualClock('2026-11-24T09:00:00.000Z');
let h: Harness;
let ws: SeededWorkspace;
let outage: Outage;

beforeAll(async () => {
  const database = await openTestDatabase();
  outage = controlOutages(database);
  h = await createHarness({ database, clock });
  ws = await h.seedWorkspace('Outage workspace');
});
afterAll(async () => {
  outage.up();
  await h.close();
});

function expectUnavailable(res: { status: number; body: any; text: string }, label: string) {
  expect(res.status, `${label}: ${res.text}`).toBe(503);
  expect(res.body, label).toEqual({
    error: {
      code: 'dependency_unavailable',
      message: expect.stringMatching(/database is unavailable/),
      details: { dependency: 'database' },
    },
  });
  expect(res.text, label).not.toMatch(/PGlite|stack|at .*\.ts/);
}

describe('the database going away', () => {
  it('answers 503 dependency_unavailable for a credential it must look up, and for a handler that reads', async () => {
    const { key } = await ws.keyFor(ws.editor, 'customer_agent');
    outage.down();
    try {
      expectUnavailable(await h.request('GET', '/setup/status', { key }), 'fresh key');
    } finally {
      outage.up();
    }
    // Cached credential: authentication needs nothing, the handler's read fails.
    expect((await h.request('GET', '/setup/status', { key })).status).toBe(200);
    outage.down();
    try {
      expectUnavailable(await h.request('GET', '/setup/status', { key }), 'cached key');
      expectUnavailable(await h.request('GET', '/agents', { key }), 'list agents');
      expectUnavailable(
        await h.request('POST', '/agents', { key, body: { name: 'Outage agent', prompt: 'Answer.' } }),
        'create agent',
      );
    } finally {
      outage.up();
    }
  });

  it('answers MCP with the same envelope: at HTTP for a credential it must look up, in the tool result after that', async () => {
    const { key } = await ws.keyFor(ws.editor, 'customer_agent');
    const call = () =>
      h.fetch(`${API_PREFIX}/mcp`, {
        method: 'POST',
        headers: {
          'x-api-key': key,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'agents', arguments: { action: 'list_agents' } },
        }),
      });
    outage.down();
    try {
      const refused = await call();
      expect(refused.status).toBe(503);
      expect((await refused.json()).error.code).toBe('dependency_unavailable');
    } finally {
      outage.up();
    }
    const healthy = await (await call()).json();
    expect(healthy.result.isError, JSON.stringify(healthy)).toBeUndefined();
    outage.down();
    try {
      const body = await (await call()).json();
      expect(body.result?.isError, JSON.stringify(body)).toBe(true);
      expect(body.result.structuredContent.error).toMatchObject({
        code: 'dependency_unavailable',
        details: { dependency: 'database' },
      });
    } finally {
      outage.up();
    }
  });

  it('leaves nothing half-written when it goes away in the middle of a write', async () => {
    const team = await h.seedWorkspace();
    const key = team.editor.key;
    await h.request('GET', '/setup/status', { key });
    let cut = 0;
    // Let 1, 2, 3 ... statements through: each attempt dies at a later point of the same write.
    for (let allowed = 1; allowed <= 12; allowed++) {
      outage.failAfter(allowed);
      const res = await h.request('POST', '/chat', { key, body: { input: 'What do customers say about pricing?' } });
      outage.up();
      if (res.status === 202) break;
      expectUnavailable(res, `cut after ${allowed} statements`);
      cut++;
      const chats = await h.request('GET', '/chats', { key });
      expect(chats.body.data.total, `after a cut at ${allowed}`).toBe(0);
    }
    expect(cut).toBeGreaterThan(0);
  });

  it('retries queued work when it comes back: a chat run started before the outage completes', async () => {
    const team = await h.seedWorkspace();
    const started = await h.request('POST', '/chat', {
      key: team.editor.key,
      body: { input: 'What do customers say about onboarding?' },
    });
    expect(started.status).toBe(202);
    const before = outage.failures;
    outage.down();
    // Until the queued run has met the outage (a fixed sleep was too short on a busy machine).
    for (let waited = 0; outage.failures === before && waited < 20_000; waited += 50) {
      await new Promise((r) => setTimeout(r, 50));
    }
    outage.up();
    expect(outage.failures).toBeGreaterThan(before);
    // Deliveries locked by attempts that failed come due again once their lock ends.
    clock.advance(120_000);
    await (h.services.queue as LocalTransport).drain();
    const run = await h.request('GET', `/chat/runs/${started.body.data.run_id}`, { key: team.editor.key });
    expect(run.body.data.status).toBe('complete');
  });
});
