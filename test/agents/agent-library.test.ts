import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { benchAgentTools, RESEARCHER_TOOL_TOKEN_TARGET } from '../../bench/agent-tools.js';
import { LIBRARY_AGENTS } from '../../functions/agents/library.js';
import { createHarness, type Harness, type SeededWorkspace } from '../support/harness.js';

/** The agent library: the code-defined roster, workspace agents' CRUD, slugs, locks and the blocklist. */

let h: Harness;
let ws: SeededWorkspace;
let other: SeededWorkspace;

beforeAll(async () => {
  h = await createHarness();
  ws = await h.seedWorkspace();
  other = await h.seedWorkspace();
});
afterAll(async () => h.close());

const create = (body: Record<string, unknown>, key = ws.editor.key, headers: Record<string, string> = {}) =>
  h.request('POST', '/agents', { key, body, headers });
const fieldsOf = (res: { body: { error: { details?: { fields?: { field: string }[] } } } }) =>
  (res.body.error.details?.fields ?? []).map((f) => f.field);

describe('the library', () => {
  it('lists library agents first (locked, amdahl, no creation time, no prompt), then the workspace\u2019s own', async () => {
    const mine = await create({ name: 'Renewal watcher', prompt: 'Watch renewals.' });
    expect(mine.status, mine.text).toBe(201);
    const res = await h.request('GET', '/agents', { key: ws.viewer.key });
    expect(res.status).toBe(200);
    const agents = res.body.data.agents as Record<string, unknown>[];
    expect(agents.slice(0, LIBRARY_AGENTS.length).map((a) => a.slug)).toEqual([
      'researcher',
      'call-prep',
      'deal-review',
      'voice-of-customer',
    ]);
    for (const a of agents.slice(0, LIBRARY_AGENTS.length)) {
      expect(a).toMatchObject({ authored_by: 'amdahl', locked: true, created_at: null });
      expect((a.tool_blocklist as string[]).length).toBeGreaterThan(0);
    }
    expect(agents.at(-1)).toMatchObject({ slug: 'renewal-watcher', authored_by: 'tenant', locked: false });
    for (const a of agents) expect(a).not.toHaveProperty('prompt');
    // Another workspace does not see it.
    const theirs = await h.request('GET', '/agents', { key: other.viewer.key });
    expect((theirs.body.data.agents as { slug: string }[]).map((a) => a.slug)).not.toContain('renewal-watcher');
  });

  it('reads one agent by slug or by uuid, with its prompt', async () => {
    const bySlug = await h.request('GET', '/agents/researcher', { key: ws.viewer.key });
    expect(bySlug.status).toBe(200);
    expect(bySlug.body.data.prompt).toMatch(/Researcher/);
    const byId = await h.request('GET', `/agents/${bySlug.body.data.id}`, { key: ws.viewer.key });
    expect(byId.body.data).toEqual(bySlug.body.data);
    expect((await h.request('GET', '/agents/no-such-agent', { key: ws.viewer.key })).status).toBe(404);
  });

  it('every library blocklist names live operations', async () => {
    for (const agent of LIBRARY_AGENTS)
      for (const id of agent.tool_blocklist) expect(h.registry.get(id), `${agent.slug}: ${id}`).toBeDefined();
  });

  it('every library agent offers a curated toolset of live operations, with no webhook, key or roster operation', () => {
    for (const agent of LIBRARY_AGENTS) {
      expect(agent.tools).toContain('search.query');
      for (const id of agent.tools) {
        expect(h.registry.get(id), `${agent.slug}: ${id}`).toBeDefined();
        expect(id, agent.slug).not.toMatch(
          /^(webhooks|agents|keys|api_keys|connections\.(connect|disconnect|update))\b/,
        );
      }
    }
  });

  it('keeps the researcher\u2019s offered tool schemas within 6k estimated tokens, far below every operation\u2019s', () => {
    const rows = benchAgentTools();
    const tokens = (agent: string) => Number(rows.find((r) => r.agent === agent)!['est. tokens (chars/4)']);
    expect(tokens('researcher')).toBeLessThanOrEqual(RESEARCHER_TOOL_TOKEN_TARGET);
    expect(tokens('researcher')).toBeLessThan(tokens('(every operation, no curation)') / 2);
  });
});

describe('creating', () => {
  it('derives a slug from the name and makes it unique with -2, -3', async () => {
    const slugs = [];
    for (let i = 0; i < 3; i++) {
      const res = await create({ name: 'Q4 Pipeline Reviewer!', prompt: 'Review the Q4 pipeline.' });
      expect(res.status, res.text).toBe(201);
      expect(res.body.data.success).toBe(true);
      slugs.push(res.body.data.agent.slug);
    }
    expect(slugs).toEqual(['q4-pipeline-reviewer', 'q4-pipeline-reviewer-2', 'q4-pipeline-reviewer-3']);
  });

  it('never derives a library agent\u2019s slug', async () => {
    const res = await create({ name: 'Researcher', prompt: 'Mine.' });
    expect(res.body.data.agent.slug).toBe('researcher-2');
  });

  it('refuses a supplied slug that is taken or a library agent\u2019s with 409 slug_conflict', async () => {
    expect((await create({ name: 'A', prompt: 'p', slug: 'my-agent' })).status).toBe(201);
    for (const slug of ['my-agent', 'researcher', 'call-prep']) {
      const res = await create({ name: 'B', prompt: 'p', slug });
      expect(res.status, slug).toBe(409);
      expect(res.body.error).toMatchObject({ code: 'slug_conflict', details: { slug } });
    }
    // The same slug in another workspace is theirs to use.
    expect((await create({ name: 'A', prompt: 'p', slug: 'my-agent' }, other.editor.key)).status).toBe(201);
  });

  it('validates every field before storing anything, naming the field', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ prompt: 'p' }, 'name'],
      [{ name: 'n' }, 'prompt'],
      [{ name: 'x'.repeat(121), prompt: 'p' }, 'name'],
      [{ name: 'n', prompt: 'p', description: 'd'.repeat(2001) }, 'description'],
      [{ name: 'n', prompt: 'p', slug: 'Not A Slug' }, 'slug'],
      [{ name: 'n', prompt: 'p', colour: 'red' }, 'colour'],
      [{ name: 'n', prompt: 'p', tool_blocklist: ['search.query', 'search.nope'] }, 'tool_blocklist.1'],
    ];
    const before = (await h.request('GET', '/agents', { key: ws.viewer.key })).body.data.agents.length;
    for (const [body, field] of cases) {
      const res = await create(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.code).toBe('invalid_argument');
      expect(fieldsOf(res), JSON.stringify(body)).toContain(field);
    }
    expect((await h.request('GET', '/agents', { key: ws.viewer.key })).body.data.agents.length).toBe(before);
  });

  it('accepts exactly 120 characters of name and 2000 of description, and a blocklist of live ids', async () => {
    const res = await create({
      name: 'n'.repeat(120),
      prompt: 'p',
      description: 'd'.repeat(2000),
      tool_blocklist: ['search.query', 'search.query', 'webhooks.create'],
    });
    expect(res.status, res.text).toBe(201);
    expect(res.body.data.agent.tool_blocklist).toEqual(['search.query', 'webhooks.create']);
  });

  it('needs agents:write and the editor role', async () => {
    expect((await create({ name: 'n', prompt: 'p' }, ws.viewer.key)).body.error.code).toBe('insufficient_role');
  });
});

describe('updating and deleting', () => {
  it('revises a workspace agent; its slug stays even if the body sends one', async () => {
    const made = await create({ name: 'Churn scout', prompt: 'v1' });
    const id = made.body.data.agent.id;
    const res = await h.request('PATCH', `/agents/${id}`, {
      key: ws.editor.key,
      body: { prompt: 'v2', description: 'now with notes', slug: 'renamed', tool_blocklist: ['webhooks.create'] },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.agent).toMatchObject({
      slug: 'churn-scout',
      prompt: 'v2',
      description: 'now with notes',
      tool_blocklist: ['webhooks.create'],
    });
    const cleared = await h.request('PATCH', '/agents/churn-scout', {
      key: ws.editor.key,
      body: { description: null },
    });
    expect(cleared.body.data.agent.description).toBeNull();
    const bad = await h.request('PATCH', '/agents/churn-scout', {
      key: ws.editor.key,
      body: { tool_blocklist: ['nope.nope'] },
    });
    expect(bad.status).toBe(400);
    expect(fieldsOf(bad)).toEqual(['tool_blocklist.0']);
  });

  it('refuses to edit or delete a library agent with 409 locked', async () => {
    for (const [method, body] of [
      ['PATCH', { name: 'Mine now' }],
      ['DELETE', undefined],
    ] as const) {
      const res = await h.request(method, '/agents/researcher', { key: ws.admin.key, ...(body ? { body } : {}) });
      expect(res.status, method).toBe(409);
      expect(res.body.error.code).toBe('locked');
    }
  });

  it('deletes a workspace agent; it is gone for reads, edits and deletes', async () => {
    const made = await create({ name: 'Temp', prompt: 'p' });
    const id = made.body.data.agent.id;
    const res = await h.request('DELETE', `/agents/${id}`, { key: ws.editor.key });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ success: true, deleted: true, id, slug: 'temp' });
    for (const method of ['GET', 'DELETE'] as const)
      expect((await h.request(method, `/agents/${id}`, { key: ws.editor.key })).status).toBe(404);
  });

  it('hides another workspace\u2019s agent: 404 to read, edit and delete, by id or slug', async () => {
    const theirs = await create({ name: 'Their secret agent', prompt: 'p' }, other.editor.key);
    const { id, slug } = theirs.body.data.agent;
    for (const ref of [id, slug]) {
      for (const [method, body] of [
        ['GET', undefined],
        ['PATCH', { name: 'x' }],
        ['DELETE', undefined],
      ] as const) {
        const res = await h.request(method, `/agents/${ref}`, { key: ws.admin.key, ...(body ? { body } : {}) });
        expect(res.status, `${method} ${ref}`).toBe(404);
      }
    }
    expect((await h.request('GET', `/agents/${id}`, { key: other.viewer.key })).status).toBe(200);
  });
});

describe('Idempotency-Key on POST /agents', () => {
  it('replays the first response for the same key and body, and refuses the key with another body', async () => {
    const body = { name: 'Idempotent agent', prompt: 'p' };
    const first = await create(body, ws.editor.key, { 'Idempotency-Key': 'create-agent-1' });
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBe('false');
    const again = await create(body, ws.editor.key, { 'Idempotency-Key': 'create-agent-1' });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    const list = (await h.request('GET', '/agents', { key: ws.viewer.key })).body.data.agents as { name: string }[];
    expect(list.filter((a) => a.name === 'Idempotent agent')).toHaveLength(1);

    const changed = await create({ ...body, prompt: 'another' }, ws.editor.key, {
      'Idempotency-Key': 'create-agent-1',
    });
    expect(changed.status).toBe(409);
    expect(changed.body.error).toMatchObject({ code: 'conflict', details: { reason: 'key_reused' } });
  });

  it("replays only to a caller who may create now: the same member's read_only key is 403 as on a fresh call", async () => {
    const body = { name: 'Admin-only agent', prompt: 'The secret prompt of an admin.' };
    const first = await create(body, ws.admin.key, { 'Idempotency-Key': 'weaker-replay-1' });
    expect(first.status, first.text).toBe(201);
    const { key: readOnly } = await ws.keyFor(ws.admin, 'read_only');
    const direct = await create(body, readOnly);
    expect(direct.status, direct.text).toBe(403);
    const replay = await create(body, readOnly, { 'Idempotency-Key': 'weaker-replay-1' });
    expect(replay.status, replay.text).toBe(403);
    expect(replay.body.error.code).toBe(direct.body.error.code);
    expect(replay.text).not.toContain(body.prompt);
    expect(replay.headers.get('idempotent-replayed')).toBeNull();
    const own = await create(body, ws.admin.key, { 'Idempotency-Key': 'weaker-replay-1' });
    expect(own.status).toBe(201);
    expect(own.headers.get('idempotent-replayed')).toBe('true');
    expect(own.body).toEqual(first.body);
  });

  it('lets concurrent duplicates create one agent: the others are 409 duplicate or the replay', {
    tags: ['race'],
  }, async () => {
    const body = { name: 'Concurrent agent', prompt: 'p' };
    const results = await Promise.all(
      [1, 2, 3, 4].map(() => create(body, ws.editor.key, { 'Idempotency-Key': 'concurrent-1' })),
    );
    const created = results.filter((r) => r.status === 201);
    expect(created.length).toBeGreaterThanOrEqual(1);
    expect(new Set(created.map((r) => r.body.data.agent.id)).size).toBe(1);
    for (const r of results.filter((x) => x.status !== 201)) {
      expect(r.status).toBe(409);
      expect(r.body.error).toMatchObject({ code: 'duplicate', details: { reason: 'in_flight' } });
      expect(r.headers.get('retry-after')).toBe('1');
    }
    const list = (await h.request('GET', '/agents', { key: ws.viewer.key })).body.data.agents as { name: string }[];
    expect(list.filter((a) => a.name === 'Concurrent agent')).toHaveLength(1);
  });

  it('releases the key when the request fails, keeps keys per member, and checks the key\u2019s shape', async () => {
    const bad = await create({ name: 'x', prompt: 'p', slug: 'researcher' }, ws.editor.key, {
      'Idempotency-Key': 'fails-first',
    });
    expect(bad.status).toBe(409);
    const fixed = await create({ name: 'x', prompt: 'p', slug: 'researcher' }, ws.editor.key, {
      'Idempotency-Key': 'fails-first',
    });
    expect(fixed.body.error.code).toBe('slug_conflict');
    const admin = await create({ name: 'Per member', prompt: 'p' }, ws.admin.key, { 'Idempotency-Key': 'shared-key' });
    const editor = await create({ name: 'Per member', prompt: 'p' }, ws.editor.key, {
      'Idempotency-Key': 'shared-key',
    });
    expect(admin.body.data.agent.id).not.toBe(editor.body.data.agent.id);
    const malformed = await create({ name: 'n', prompt: 'p' }, ws.editor.key, {
      'Idempotency-Key': 'has spaces in it',
    });
    expect(malformed.status).toBe(400);
    expect(fieldsOf(malformed)).toEqual(['Idempotency-Key']);
  });
});
