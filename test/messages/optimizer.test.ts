import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { estimateReplyProbability } from '../../functions/messages/reply-model.js';
import { LocalModelProvider } from '../../platform/model/local.js';
import type { ModelProvider, ModelRunOptions, ModelTask } from '../../platform/model/port.js';
import { runs, workspaces } from '../../schema/index.js';
import { createHarness, type Harness, type SeededWorkspace } from '../support/harness.js';
import { REPLY_LABELLED_SET } from './reply-labelled-set.js';

/** POST /messages/optimize: rounds kept by score, the honest failures, its bounds and its quota. */
const WEAK = REPLY_LABELLED_SET.find((e) => e.id === 'my-name-is')?.message as string;
const STRONG = REPLY_LABELLED_SET.find((e) => e.id === 'specific-short-ask')?.message as string;

/** A model that behaves like the local one until told to hang or fail on the rewrite task. */
class SwitchableModel implements ModelProvider {
  readonly id = 'switchable';
  mode: 'normal' | 'hang' | 'fail' = 'normal';
  readonly #local = new LocalModelProvider();
  async run<I, O>(task: ModelTask<I, O>, input: I, options?: ModelRunOptions): Promise<O> {
    if (task.name === 'evals.rewrite' && this.mode === 'hang') {
      await new Promise((_, reject) =>
        options?.signal?.addEventListener('abort', () => reject(options.signal?.reason), { once: true }),
      );
    }
    if (task.name === 'evals.rewrite' && this.mode === 'fail') throw new Error('provider exploded');
    return this.#local.run(task, input);
  }
  step: ModelProvider['step'] = (task, request, options) => this.#local.step(task, request, options);
}

let h: Harness;
let ws: SeededWorkspace;
const model = new SwitchableModel();

beforeAll(async () => {
  h = await createHarness({ model, env: { OPTIMIZER_TIMEOUT_MS: '300' } });
  ws = await h.seedWorkspace('Optimizer workspace');
});
afterAll(async () => h.close());

const optimize = (body: Record<string, unknown>, key = ws.editor.key) =>
  h.request('POST', '/messages/optimize', { key, body });

describe('POST /messages/optimize', () => {
  it('rewrites a weak email and keeps the best-scoring round, with the run recorded', async () => {
    const res = await optimize({ message: WEAK, channel: 'email' });
    expect(res.status, res.text).toBe(200);
    const data = res.body.data;
    expect(data).toMatchObject({
      ok: true,
      unchanged: false,
      channel: 'email',
      run_id: expect.any(String),
      summary: expect.stringMatching(/^Round \d of \d kept/),
    });
    expect(data.message).not.toMatch(/My name is/);
    expect(estimateReplyProbability(data.message).probability).toBeGreaterThan(
      estimateReplyProbability(WEAK).probability,
    );
    expect(data.extraction).toEqual({ recipient_name: 'Paul', topic: 'Introduction' });
    const [run] = await h.database.db.select().from(runs).where(eq(runs.id, data.run_id));
    expect(run).toMatchObject({ kind: 'message_optimize', status: 'complete', workspaceId: ws.id });
    const rounds = (run!.outputs as { result: { rounds: { round: number; score: number }[] } }).result.rounds;
    expect(rounds[0]?.round).toBe(0);
    expect(rounds.length).toBeLessThanOrEqual(4);
    const best = Math.max(...rounds.map((r) => r.score));
    expect(rounds.find((r) => r.score === best)?.round).toBeGreaterThan(0);
  });

  it('answers unchanged when nothing beats the submitted draft, and infers the channel', async () => {
    const res = await optimize({ message: STRONG });
    expect(res.body.data).toMatchObject({ ok: true, channel: 'email' });
    if (res.body.data.unchanged) expect(res.body.data.message).toBe(STRONG);
    expect(res.body.data.extraction).toMatchObject({
      recipient_name: 'Dana',
      topic: 'Your 3-week onboarding target',
      ask: expect.stringMatching(/15-minute call/),
    });
    const note = await optimize({ message: 'hey, quick one - can you send the renewal numbers by friday?' });
    expect(note.body.data.channel).toBe('whatsapp');
  });

  it('refuses bad input by field, a viewer, and a caller without messages:execute', async () => {
    expect((await optimize({ message: 'x'.repeat(10_001) })).body.error.details.fields[0].field).toBe('message');
    expect((await optimize({ message: '' })).status).toBe(400);
    expect((await optimize({ message: 'hi', channel: 'fax' })).body.error.details.fields[0].field).toBe('channel');
    expect((await optimize({ message: 'hi', sender: 'ceo@example.com' })).body.error.details.fields[0].field).toBe(
      'sender',
    );
    const viewer = await optimize({ message: WEAK }, ws.viewer.key);
    expect(viewer.body.error).toMatchObject({ code: 'insufficient_role' });
    const { key } = await ws.keyFor(ws.editor, 'read_only');
    expect((await optimize({ message: WEAK }, key)).body.error.code).toBe('scope_denied');
  });

  it('says why it has no message: unconfigured, past its budget, or failing', async () => {
    model.mode = 'hang';
    const slow = await optimize({ message: WEAK });
    expect(slow.body.data).toEqual({ ok: false, reason: 'optimizer_timeout', run_id: expect.any(String) });
    model.mode = 'fail';
    const broken = await optimize({ message: WEAK });
    expect(broken.body.data).toEqual({ ok: false, reason: 'optimizer_error', run_id: expect.any(String) });
    const [failed] = await h.database.db.select().from(runs).where(eq(runs.id, broken.body.data.run_id));
    expect(failed).toMatchObject({ status: 'failed', error: expect.objectContaining({ code: 'optimizer_error' }) });
    model.mode = 'normal';
    const off = await createHarness({ database: h.database, env: { OPTIMIZER_ENABLED: '0' } });
    const res = await off.request('POST', '/messages/optimize', { key: ws.editor.key, body: { message: WEAK } });
    expect(res.body.data).toEqual({ ok: false, reason: 'optimizer_unconfigured', run_id: null });
  });

  it('counts against the monthly optimizer cap and setup/status reports it', async () => {
    const team = await h.seedWorkspace();
    await h.database.db
      .update(workspaces)
      .set({ quotaOverrides: { optimizer: 2 } })
      .where(eq(workspaces.id, team.id));
    for (let i = 0; i < 2; i++) expect((await optimize({ message: WEAK }, team.editor.key)).status).toBe(200);
    const over = await optimize({ message: WEAK }, team.editor.key);
    expect(over.status).toBe(429);
    expect(over.body.error).toMatchObject({ code: 'quota_exceeded', details: { family: 'optimizer', limit: 2 } });
    const status = await h.request('GET', '/setup/status', { key: team.editor.key });
    expect(status.body.data.optimize).toMatchObject({
      allowed: false,
      blocker: 'quota_exhausted',
      quota: { limit: 2, used: 2, remaining: 0 },
    });
  });

  it('is not offered over MCP', async () => {
    const res = await h.fetch('/api/platform/v1/mcp', {
      method: 'POST',
      headers: {
        'x-api-key': ws.editor.key,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    const tools = (await res.json()).result.tools as { name: string; description: string }[];
    expect(tools.some((t) => t.name === 'messages' || /- optimize:|messages\.optimize/.test(t.description))).toBe(
      false,
    );
  });
});
