import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../platform/db/port.js';
import type { LocalTransport } from '../../queues/transport/local.js';
import { createHarness, openCorpusDatabase, type Harness, type SeededWorkspace } from '../support/harness.js';

/**
 * Eval compare: two complete runs of one eval side by side per case, grader and dimension, with the
 * scores checked against the stored run state by SQL; a pair across an eval_version boundary is 409
 * naming both versions; different evals, unfinished runs and another workspace's runs are refused.
 */
let h: Harness;
let ws: SeededWorkspace;

beforeAll(async () => {
  h = await createHarness({ database: await openCorpusDatabase() });
  ws = await h.corpusWorkspace();
}, 120_000);
afterAll(async () => {
  await h.close();
  await h.database.close();
});

const WEAK =
  'Subject: AMAZING opportunity!!!\n\nHi there,\n\nI hope this email finds you well. We are a revolutionary best-in-class platform. We help companies. Let me know.\n\nThanks';
const STRONG =
  'Subject: Onboarding in weeks, not months\n\nHi Dana,\n\nTeams like yours told us onboarding took 3 months and the setup needed too many manual steps. Our rollout for a 200-seat team took 3 weeks with a guided import.\n\nWould a 15-minute call next Tuesday be useful to see if that fits your timeline?\n\nBest, Sam';

const drain = () => (h.services.queue as LocalTransport).drain();
const compare = (a: string, b: string, key = ws.viewer.key) =>
  h.request('POST', '/eval-runs/compare', { key, body: { a, b } });

async function runOf(body: Record<string, unknown>, drained = true): Promise<string> {
  const res = await h.request('POST', '/evals/run', { key: ws.editor.key, body: { reuse: 'force', ...body } });
  expect(res.status, res.text).toBe(202);
  if (drained) await drain();
  return res.body.data.run_id;
}

type StoredCase = {
  case_id: string;
  score: number | null;
  applicable: boolean;
  graders: { grader_id: string; score: number | null; dimensions: { name: string; score: number }[] }[];
};
/** The verdict as the run store holds it, read independently of the code under test. */
async function storedVerdict(runId: string) {
  const [row] = await queryRows<{
    verdict: { eval_version: string; overall_score: number | null; cases: StoredCase[] };
  }>(h.database.db, sql`select state->'verdict' as verdict from runs where id = ${runId}`);
  if (!row) throw new Error(`run ${runId} not stored`);
  return row.verdict;
}

describe('eval compare', () => {
  it('puts two runs of one version side by side per case, grader and dimension, deltas b minus a', async () => {
    const weak = await runOf({ inputs: { message: WEAK, artifact_type: 'email', audience: 'VP of Operations' } });
    const strong = await runOf({ inputs: { message: STRONG, artifact_type: 'email', audience: 'VP of Operations' } });
    const res = await compare(weak, strong);
    expect(res.status, res.text).toBe(200);
    const data = res.body.data;
    const [a, b] = [await storedVerdict(weak), await storedVerdict(strong)];
    expect(data).toMatchObject({ eval_slug: 'prompt-and-message-eval', eval_version: a.eval_version });
    expect(data.a.run_id).toBe(weak);
    expect(data.b.run_id).toBe(strong);
    expect(data.overall.a).toBe(a.overall_score);
    expect(data.overall.b).toBe(b.overall_score);
    expect(data.overall.delta).toBeCloseTo((b.overall_score ?? 0) - (a.overall_score ?? 0), 6);
    expect(data.overall.delta).toBeGreaterThan(0);

    const dims = data.cases.flatMap((c: { case_id: string; dimensions: { grader_id: string; name: string }[] }) =>
      c.dimensions.map((d) => ({ case_id: c.case_id, ...d })),
    );
    expect(dims.length).toBeGreaterThan(0);
    for (const stored of a.cases) {
      const shown = data.cases.find((c: { case_id: string }) => c.case_id === stored.case_id);
      expect(shown.a).toBe(stored.applicable ? stored.score : null);
      for (const g of stored.graders) {
        expect(shown.graders.find((x: { grader_id: string }) => x.grader_id === g.grader_id).a).toBe(g.score);
        for (const d of g.dimensions) {
          const other = b.cases
            .find((c) => c.case_id === stored.case_id)
            ?.graders.find((x) => x.grader_id === g.grader_id)
            ?.dimensions.find((x) => x.name === d.name);
          expect(
            dims.find(
              (x: { case_id: string; grader_id: string; name: string }) =>
                x.case_id === stored.case_id && x.grader_id === g.grader_id && x.name === d.name,
            ),
          ).toMatchObject({ a: d.score, b: other?.score ?? null, delta: other ? other.score - d.score : null });
        }
      }
    }
  }, 120_000);

  it('refuses a pair across an eval_version boundary with 409 naming both versions', async () => {
    const { key: author } = await ws.keyFor(ws.editor, 'internal_agent');
    const created = await h.request('POST', '/evals', {
      key: author,
      body: {
        slug: 'compare-openers',
        name: 'Compare openers',
        input_schema: { fields: [{ name: 'opener', type: 'text', required: true, max_length: 2000 }] },
        graders: [{ id: 'rules', kind: 'rule', target: 'opener', checks: ['no_hype', 'has_call_to_action'] }],
      },
    });
    expect(created.status, created.text).toBe(201);
    const inputs = { opener: 'Saw your post on onboarding pain. Worth a 10-minute chat next week?' };
    const v1 = await runOf({ eval: 'compare-openers', inputs, scope: { allow_thin_evidence: true } });
    const regraded = await h.request('PATCH', '/evals/compare-openers', {
      key: author,
      body: { graders: [{ id: 'rules', kind: 'rule', target: 'opener', checks: ['no_hype'] }] },
    });
    expect(regraded.body.data.version).toBe('1.1.0');
    const v2 = await runOf({ eval: 'compare-openers', inputs, scope: { allow_thin_evidence: true } });

    const refused = await compare(v1, v2);
    expect(refused.status, refused.text).toBe(409);
    expect(refused.body.error.code).toBe('conflict');
    expect(refused.body.error.details).toMatchObject({
      eval_slug: 'compare-openers',
      a_version: '1.0.0',
      b_version: '1.1.0',
      a: v1,
      b: v2,
    });
    expect(refused.body.error.message).toContain('1.0.0');
    expect(refused.body.error.message).toContain('1.1.0');

    const same = await runOf({ eval: 'compare-openers', inputs, scope: { allow_thin_evidence: true } });
    const ok = await compare(v2, same);
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body.data.overall.delta).toBe(0);

    const builtin = await runOf({ inputs: { message: STRONG, artifact_type: 'email' } });
    const otherEval = await compare(v2, builtin);
    expect(otherEval.status).toBe(409);
    expect(otherEval.body.error.details).toMatchObject({
      a_slug: 'compare-openers',
      b_slug: 'prompt-and-message-eval',
    });
  }, 120_000);

  it("refuses unfinished runs (409), unknown and other workspaces' runs (404), bad ids (400)", async () => {
    const done = await runOf({ inputs: { message: STRONG, artifact_type: 'email' } });
    const queued = await runOf({ inputs: { message: WEAK, artifact_type: 'email' } }, false);
    const unfinished = await compare(done, queued);
    expect(unfinished.status).toBe(409);
    expect(unfinished.body.error).toMatchObject({
      code: 'invalid_state',
      details: { b: queued, current_status: 'queued' },
    });
    await drain();

    const other = await h.seedWorkspace('compare-other');
    const theirs = await compare(done, done, other.viewer.key);
    expect(theirs.status).toBe(404);
    expect(theirs.body.error.code).toBe('not_found');
    expect((await compare(done, '01936f0e-7c1a-7b3e-9d2a-4a1b2c3d4e5f')).status).toBe(404);
    const bad = await h.request('POST', '/eval-runs/compare', { key: ws.viewer.key, body: { a: done, b: 'nope' } });
    expect(bad.status).toBe(400);
    const extra = await h.request('POST', '/eval-runs/compare', {
      key: ws.viewer.key,
      body: { a: done, b: done, pool: true },
    });
    expect(extra.status).toBe(400);
  }, 120_000);
});
