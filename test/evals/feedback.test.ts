import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalTransport } from '../../queues/transport/local.js';
import { createHarness, openCorpusDatabase, type Harness, type SeededWorkspace } from '../support/harness.js';

/**
 * After a run: feedback with server-side verification of where the recommendation was applied,
 * and the adoption rollup that abstains until the data can carry a rate.
 */
let h: Harness;
let ws: SeededWorkspace;
let author: string;

beforeAll(async () => {
  h = await createHarness({ database: await openCorpusDatabase() });
  ws = await h.corpusWorkspace();
  author = (await ws.keyFor(ws.editor, 'internal_agent')).key;
}, 120_000);
afterAll(async () => {
  await h.close();
  await h.database.close();
});

const drain = () => (h.services.queue as LocalTransport).drain();
const PROMPT = 'Write a follow-up email to a prospect after a demo.';

async function promptRun(slug = 'prompt-and-message-eval'): Promise<{ id: string; after: string }> {
  const inputs = slug === 'prompt-and-message-eval' ? { prompt: PROMPT, audience: 'VP of Sales' } : { prompt: PROMPT };
  const res = await h.request('POST', '/evals/run', {
    key: ws.editor.key,
    body: { eval: slug, inputs, reuse: 'force', scope: { allow_thin_evidence: true } },
  });
  expect(res.status, res.text).toBe(202);
  await drain();
  const run = (await h.request('GET', `/eval-runs/${res.body.data.run_id}`, { key: ws.viewer.key })).body.data.run;
  const improvement = run.verdict.cases
    .find((c: { case_id: string }) => c.case_id === 'prompt')
    .graders.find((g: { improvement?: unknown }) => g.improvement).improvement;
  return { id: run.id, after: improvement.after.prompt };
}

const feedback = (runId: string, body: Record<string, unknown>) =>
  h.request('POST', `/eval-runs/${runId}/feedback`, { key: ws.editor.key, body });

async function agentWith(prompt: string): Promise<string> {
  const res = await h.request('POST', '/agents', {
    key: author,
    body: { name: `Writer ${Math.random().toString(36).slice(2, 8)}`, prompt },
  });
  expect(res.status, res.text).toBe(201);
  return res.body.data.agent.id;
}

describe('feedback', () => {
  it('verifies that the target holds the recommendation: true, false, or null when nothing is checked', async () => {
    const run = await promptRun();
    expect(run.after).not.toBe(PROMPT);
    const applied = await agentWith(run.after);
    const yes = await feedback(run.id, {
      evidence: { kind: 'did_it_myself', note: 'Pasted it into our writer agent.' },
      applied_to: { kind: 'agent', id: applied },
    });
    expect(yes.status, yes.text).toBe(201);
    expect(yes.body.data).toMatchObject({
      verified: true,
      counted: true,
      adopted: true,
      applied_to: { kind: 'agent', id: applied },
    });

    const untouched = await agentWith(PROMPT);
    const no = await feedback(run.id, {
      evidence: { kind: 'reported_to_me' },
      applied_to: { kind: 'agent', id: untouched },
    });
    expect(no.body.data).toMatchObject({ verified: false, verification_reason: expect.stringMatching(/holds 0 of/) });

    const unchecked = await feedback(run.id, { evidence: { kind: 'inferred' } });
    expect(unchecked.body.data).toMatchObject({ verified: null, counted: false, verification_reason: null });

    const missing = await feedback(run.id, {
      evidence: { kind: 'did_it_myself' },
      applied_to: { kind: 'routine', id: '01936f0e-7c1a-7b3e-9d2a-4a1b2c3d4e5f' },
    });
    expect(missing.status).toBe(404);
    const badKind = await feedback(run.id, { evidence: { kind: 'hunch' } });
    expect(badKind.status).toBe(400);

    const list = (await h.request('GET', `/eval-runs/${run.id}/feedback`, { key: ws.viewer.key })).body.data;
    expect(list.total).toBe(3);
    expect(list.feedback.map((f: { evidence_kind: string }) => f.evidence_kind)).toEqual([
      'did_it_myself',
      'reported_to_me',
      'inferred',
    ]);
  });
});

describe('adoption', () => {
  it('abstains with no eligible runs, then a thin window, then no signal, and publishes a rate with its denominators', async () => {
    const slug = 'adoption-probe';
    const created = await h.request('POST', '/evals', {
      key: author,
      body: {
        slug,
        name: 'Adoption probe',
        input_schema: { fields: [{ name: 'prompt', type: 'text', required: true }] },
        graders: [{ id: 'p', kind: 'improvement_loop', target: 'prompt', dimensions: ['grounding', 'guardrails'] }],
      },
    });
    expect(created.status, created.text).toBe(201);
    const adoption = async () => (await h.request('GET', `/evals/${slug}/adoption`, { key: ws.viewer.key })).body.data;
    expect(await adoption()).toMatchObject({
      adoption_rate: null,
      abstain_reason: 'no_eligible_runs',
      eligible_runs: { value: 0 },
    });

    const runs: string[] = [];
    for (let i = 0; i < 2; i++) runs.push((await promptRun(slug)).id);
    expect(await adoption()).toMatchObject({
      adoption_rate: null,
      abstain_reason: 'thin_window',
      eligible_runs: { value: 2 },
    });
    for (let i = 0; i < 4; i++) runs.push((await promptRun(slug)).id);
    await feedback(runs[0] as string, { evidence: { kind: 'inferred' } });
    const silent = await adoption();
    expect(silent).toMatchObject({
      adoption_rate: null,
      abstain_reason: 'no_signal',
      eligible_runs: { value: 6 },
      inferred_signals: { value: 1 },
    });

    await feedback(runs[1] as string, { evidence: { kind: 'did_it_myself' } });
    await feedback(runs[2] as string, { evidence: { kind: 'reported_to_me' } });
    await feedback(runs[3] as string, { evidence: { kind: 'did_it_myself' }, adopted: false });
    const published = await adoption();
    expect(published).toMatchObject({
      abstain_reason: null,
      adoption_rate: 0.333,
      adopted_runs: { value: 2 },
      runs_with_feedback: { value: 3 },
      not_adopted_runs: { value: 1 },
      inferred_signals: { value: 1 },
    });
    for (const key of [
      'eligible_runs',
      'runs_with_feedback',
      'adopted_runs',
      'verified_runs',
      'not_adopted_runs',
      'inferred_signals',
    ])
      expect(published[key].denominator, key).toEqual(expect.any(String));
    const kpi = (await h.request('GET', `/evals/${slug}/kpi`, { key: ws.viewer.key })).body.data;
    expect(kpi).toMatchObject({
      adoption_rate: 0.333,
      pass_rate: expect.any(Number),
      mean_overall_score: { value: expect.any(Number) },
    });
  }, 60_000);
});
