import { eq } from 'drizzle-orm';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authenticateApiKey } from '../../functions/identity/api-keys.js';
import { runCallerOf } from '../../functions/identity/run-caller.js';
import { allOperations } from '../../functions/modules.js';
import { invocationForRun } from '../../functions/runs/invocation.js';
import type { Services } from '../../functions/services.js';
import { definePipeline } from '../../queues/pipeline.js';
import { loadRun } from '../../queues/run-store.js';
import type { LocalTransport } from '../../queues/transport/local.js';
import { apiKeys, memberships, workspaces } from '../../schema/index.js';
import { removeMembership } from '../../functions/identity/members.js';
import { createHarness, type Harness, type SeededWorkspace } from '../support/harness.js';
import { testOperations } from '../support/test-operations.js';

/**
 * A run acts as its caller: the caller is stored at start and re-checked at every stage; calls go
 * through the same checks as REST, failures come back as values, the interactive per-user rate
 * limits do not apply to a run's calls, and monthly quotas do.
 */

const invoker = definePipeline<
  Services,
  { calls: { op: string; args: Record<string, unknown> }[] },
  Record<string, never>
>({
  kind: 'test_invoker',
  input: z.object({ calls: z.array(z.object({ op: z.string(), args: z.record(z.string(), z.unknown()) })) }),
  state: z.object({}),
  stages: {
    call: async (ctx) => {
      const invocation = await invocationForRun(ctx.services, ctx.run, ctx.signal);
      const results = [];
      for (const call of ctx.input.calls) results.push(await invocation.invoke(call.op, call.args));
      return {
        complete: true,
        output: {
          as: invocation.caller.email,
          role: invocation.caller.role,
          scopes: [...invocation.caller.scopes].sort(),
          results,
        },
      };
    },
  },
  retry: { maxAttempts: 1, baseDelayMs: 10, maxDelayMs: 10 },
});

let h: Harness;
let ws: SeededWorkspace;

beforeAll(async () => {
  h = await createHarness({ pipelines: [invoker], operations: [...allOperations, ...testOperations] });
  ws = await h.seedWorkspace();
});
afterAll(async () => h.close());

async function runAs(key: string, calls: { op: string; args: Record<string, unknown> }[]) {
  const caller = await authenticateApiKey(h.services.db, key, new Date());
  const { runId } = await h.services.engine.start({
    workspaceId: ws.id,
    kind: 'test_invoker',
    input: { calls },
    caller: runCallerOf(caller),
  });
  await (h.services.queue as LocalTransport).drain();
  const row = await loadRun(h.services.db, runId);
  if (!row) throw new Error('run vanished');
  return row;
}

describe('a run acting as its caller', () => {
  it('stores the caller at start', async () => {
    const caller = await authenticateApiKey(h.services.db, ws.editor.key, new Date());
    const { runId } = await h.services.engine.start({
      workspaceId: ws.id,
      kind: 'test_invoker',
      input: { calls: [] },
      caller: runCallerOf(caller),
    });
    const row = await loadRun(h.services.db, runId);
    expect(row?.caller).toMatchObject({
      user_id: ws.editor.userId,
      email: ws.editor.email,
      role: 'editor',
      auth_method: 'api_key',
      credential_id: caller.credentialId,
    });
    expect(row?.caller?.scopes).toEqual([...caller.scopes].sort());
    expect(row?.createdBy).toBe(ws.editor.userId);
  });

  it('is not throttled by the interactive per-user limit, which REST still applies', async () => {
    const row = await runAs(
      ws.viewer.key,
      [1, 2, 3].map(() => ({ op: 'testing.limited', args: {} })),
    );
    const output = row.outputs.call as { results: { ok: boolean }[] };
    expect(output.results.map((r) => r.ok)).toEqual([true, true, true]);
    expect((await h.request('GET', '/testing/limited', { key: ws.viewer.key })).status).toBe(200);
    expect((await h.request('GET', '/testing/limited', { key: ws.viewer.key })).status).toBe(429);
  });

  it('counts monthly quotas like any call, and a quota refusal is a value', async () => {
    await h.database.db
      .update(workspaces)
      .set({ quotaOverrides: { search: 2 } })
      .where(eq(workspaces.id, ws.id));
    try {
      const search = { op: 'search.query', args: { filters: [{ field: 'kind', op: 'eq', value: 'call' }], limit: 1 } };
      const row = await runAs(ws.editor.key, [search, search, search]);
      const results = (row.outputs.call as { results: { ok: boolean; error?: { code: string } }[] }).results;
      expect(results.map((r) => r.ok)).toEqual([true, true, false]);
      expect(results[2]?.error?.code).toBe('quota_exceeded');
      expect(row.status).toBe('complete');
    } finally {
      await h.database.db.update(workspaces).set({ quotaOverrides: {} }).where(eq(workspaces.id, ws.id));
    }
  });

  it('returns bad input, missing scope and role refusals as the envelope REST would render', async () => {
    const row = await runAs(ws.editor.key, [
      { op: 'testing.echo', args: { name: 'n' } },
      { op: 'testing.needs_scope', args: {} },
      { op: 'testing.admin_only', args: {} },
      { op: 'no.such.operation', args: {} },
    ]);
    const results = (row.outputs.call as { results: { ok: boolean; error?: { code: string; message: string } }[] })
      .results;
    expect(results.map((r) => r.error?.code)).toEqual([
      'invalid_argument',
      'scope_denied',
      'insufficient_role',
      'invalid_argument',
    ]);
    for (const r of results) expect(r.error?.message).toMatch(/\S/);
  });

  it('narrows to the credential\u2019s scopes now: a scope taken from the key after start is gone', async () => {
    const { key, keyId } = await ws.keyFor(ws.editor, 'customer_agent');
    const caller = await authenticateApiKey(h.services.db, key, new Date());
    const { runId } = await h.services.engine.start({
      workspaceId: ws.id,
      kind: 'test_invoker',
      input: { calls: [{ op: 'search.query', args: { filters: [{ field: 'kind', op: 'eq', value: 'call' }] } }] },
      caller: runCallerOf(caller),
    });
    await h.database.db
      .update(apiKeys)
      .set({ scopes: ['conversations:read'] })
      .where(eq(apiKeys.id, keyId));
    await (h.services.queue as LocalTransport).drain();
    const output = (await loadRun(h.services.db, runId))?.outputs.call as {
      scopes: string[];
      results: { error?: { code: string } }[];
    };
    expect(output.scopes).toEqual(['conversations:read']);
    expect(output.results[0]?.error?.code).toBe('scope_denied');
  });

  it('fails with forbidden, not retried, when the key was revoked or the member removed', async () => {
    const { key, keyId } = await ws.keyFor(ws.editor, 'customer_agent');
    const caller = await authenticateApiKey(h.services.db, key, new Date());
    const start = () =>
      h.services.engine.start({
        workspaceId: ws.id,
        kind: 'test_invoker',
        input: { calls: [] },
        caller: runCallerOf(caller),
      });

    const revoked = await start();
    await h.revokeKey(keyId);
    await (h.services.queue as LocalTransport).drain();
    expect((await loadRun(h.services.db, revoked.runId))?.error).toMatchObject({
      code: 'forbidden',
      message: expect.stringContaining('revoked'),
    });

    const leaver = await h.seedWorkspace();
    const leaverCaller = await authenticateApiKey(h.services.db, leaver.editor.key, new Date());
    const { runId } = await h.services.engine.start({
      workspaceId: leaver.id,
      kind: 'test_invoker',
      input: { calls: [] },
      caller: runCallerOf(leaverCaller),
    });
    await removeMembership(h.database.db, leaver.id, leaver.editor.userId);
    await (h.services.queue as LocalTransport).drain();
    const failed = await loadRun(h.services.db, runId);
    expect(failed?.status).toBe('failed');
    expect(failed?.error).toMatchObject({
      code: 'forbidden',
      message: expect.stringContaining('no longer in the workspace'),
    });
    expect(failed?.totalAttempts).toBe(1);
  });

  it('uses the member\u2019s role now: a demoted admin\u2019s run cannot call admin operations', async () => {
    const team = await h.seedWorkspace();
    const caller = await authenticateApiKey(h.services.db, team.admin.key, new Date());
    const { runId } = await h.services.engine.start({
      workspaceId: team.id,
      kind: 'test_invoker',
      input: { calls: [{ op: 'testing.admin_only', args: {} }] },
      caller: runCallerOf(caller),
    });
    await h.database.db.update(memberships).set({ role: 'viewer' }).where(eq(memberships.userId, team.admin.userId));
    await (h.services.queue as LocalTransport).drain();
    const output = (await loadRun(h.services.db, runId))?.outputs.call as {
      role: string;
      results: { error?: { code: string } }[];
    };
    expect(output.role).toBe('viewer');
    expect(output.results[0]?.error?.code).toBe('insufficient_role');
  });
});
