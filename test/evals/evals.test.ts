import { parse } from 'csv-parse/sync';
import { and, eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalTransport } from '../../queues/transport/local.js';
import { transcriptTurns } from '../../schema/index.js';
import { queryRows } from '../../platform/db/port.js';
import { sql } from 'drizzle-orm';
import { createHarness, openCorpusDatabase, type Harness, type SeededWorkspace } from '../support/harness.js';

/**
 * Evals on the demo corpus with the local model: the catalog and its authoring, every refusal of
 * POST /evals/run, the report card on a weak and a strong message, reuse, gate scoring with
 * inapplicable rubric lines, advisory mode, abstaining on thin evidence, the sub-views.
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
  'Subject: AMAZING opportunity!!!\n\nHi there,\n\nI hope this email finds you well. My name is Sam and we are a revolutionary best-in-class platform. We help companies. Let me know.\n\nThanks';
const STRONG =
  'Subject: Onboarding in weeks, not months\n\nHi Dana,\n\nTeams like yours told us onboarding took 3 months and the setup needed too many manual steps. Our rollout for a 200-seat team took 3 weeks with a guided import.\n\nWould a 15-minute call next Tuesday be useful to see if that fits your timeline?\n\nBest, Sam';

const drain = () => (h.services.queue as LocalTransport).drain();
const submit = (body: Record<string, unknown>, key = ws.editor.key) => h.request('POST', '/evals/run', { key, body });

async function evaluate(body: Record<string, unknown>) {
  const res = await submit(body);
  expect(res.status, res.text).toBe(202);
  await drain();
  const read = await h.request('GET', `/eval-runs/${res.body.data.run_id}`, { key: ws.viewer.key });
  expect(read.status).toBe(200);
  return { handle: res.body.data, run: read.body.data };
}

describe('the eval catalog', () => {
  it('lists the built-in eval with its dotted version, input schema and graders', async () => {
    const res = await h.request('GET', '/evals', { key: ws.viewer.key });
    expect(res.status).toBe(200);
    const builtin = res.body.data.evals.find((e: { slug: string }) => e.slug === 'prompt-and-message-eval');
    expect(builtin).toMatchObject({ builtin: true, version: expect.stringMatching(/^\d+\.\d+\.\d+$/) });
    expect(builtin.input_schema.fields.map((f: { name: string }) => f.name)).toEqual([
      'prompt',
      'message',
      'audience',
      'account',
      'reference_accounts',
      'artifact_type',
      'mode',
    ]);
    expect(builtin.graders.map((g: { kind: string }) => g.kind)).toEqual([
      'rule',
      'improvement_loop',
      'rule',
      'improvement_loop',
    ]);
    expect((await h.request('GET', '/evals/prompt-and-message-eval', { key: ws.viewer.key })).body.data.slug).toBe(
      'prompt-and-message-eval',
    );
    expect((await h.request('GET', '/evals/no-such-eval', { key: ws.viewer.key })).status).toBe(404);
  });

  it('authors a workspace eval: create, conflicts, validation, versioned updates, delete', async () => {
    const { key: author } = await ws.keyFor(ws.editor, 'internal_agent');
    const draft = {
      slug: 'linkedin-openers',
      name: 'LinkedIn openers',
      input_schema: {
        fields: [
          { name: 'opener', type: 'text', required: true, max_length: 2000 },
          { name: 'artifact_type', type: 'enum', values: ['linkedin'] },
        ],
      },
      graders: [{ id: 'opener_rules', kind: 'rule', target: 'opener', checks: ['no_hype', 'has_call_to_action'] }],
    };
    const created = await h.request('POST', '/evals', { key: author, body: draft });
    expect(created.status, created.text).toBe(201);
    expect(created.body.data).toMatchObject({ slug: 'linkedin-openers', version: '1.0.0', builtin: false });
    expect((await h.request('POST', '/evals', { key: author, body: draft })).body.error.code).toBe('slug_conflict');
    expect(
      (await h.request('POST', '/evals', { key: author, body: { ...draft, slug: 'prompt-and-message-eval' } })).body
        .error.code,
    ).toBe('slug_conflict');

    const bad = await h.request('POST', '/evals', {
      key: author,
      body: {
        ...draft,
        slug: 'broken',
        graders: [{ id: 'x', kind: 'rule', target: 'nope', checks: ['no_such_check'] }],
      },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.fields.map((f: { field: string }) => f.field)).toContain('graders.0.checks.0');

    const renamed = await h.request('PATCH', '/evals/linkedin-openers', {
      key: author,
      body: { name: 'LinkedIn first lines' },
    });
    expect(renamed.body.data).toMatchObject({ name: 'LinkedIn first lines', version: '1.0.0' });
    const regraded = await h.request('PATCH', '/evals/linkedin-openers', {
      key: author,
      body: { graders: [{ id: 'opener_rules', kind: 'rule', target: 'opener', checks: ['no_hype'] }] },
    });
    expect(regraded.body.data.version).toBe('1.1.0');
    expect(
      (await h.request('PATCH', '/evals/prompt-and-message-eval', { key: author, body: { name: 'x' } })).body.error
        .code,
    ).toBe('locked');

    const run = await evaluate({
      eval: 'linkedin-openers',
      inputs: {
        opener: 'Saw your post on onboarding pain. Worth a 10-minute chat next week?',
        artifact_type: 'linkedin',
      },
      scope: { allow_thin_evidence: true },
    });
    expect(run.run.run.eval_version).toBe('1.1.0');
    expect(run.run.run.verdict.cases.map((c: { case_id: string }) => c.case_id)).toEqual(['opener']);

    expect((await h.request('DELETE', '/evals/linkedin-openers', { key: author })).status).toBe(200);
    expect((await h.request('GET', '/evals/linkedin-openers', { key: ws.viewer.key })).status).toBe(404);
  });

  it('validates a definition and sample inputs without storing anything', async () => {
    const before = (await h.request('GET', '/evals', { key: ws.viewer.key })).body.data.total;
    const ok = await h.request('POST', '/evals/validate', {
      key: ws.viewer.key,
      body: {
        input_schema: { fields: [{ name: 'note', type: 'text', required: true }] },
        graders: [{ id: 'g', kind: 'improvement_loop', target: 'note', dimensions: ['clarity'] }],
        inputs: { note: 'hello' },
      },
    });
    expect(ok.body.data).toEqual({ valid: true, issues: [] });
    const bad = await h.request('POST', '/evals/validate', {
      key: ws.viewer.key,
      body: {
        input_schema: { fields: [{ name: 'note', type: 'enum' }] },
        graders: [{ id: 'g', kind: 'rule', target: 'note', checks: ['no_hype'] }],
        inputs: {},
      },
    });
    expect(bad.body.data.valid).toBe(false);
    expect(bad.body.data.issues.map((i: { field: string }) => i.field)).toContain('input_schema.fields.0.values');
    expect((await h.request('GET', '/evals', { key: ws.viewer.key })).body.data.total).toBe(before);
  });
});

describe('POST /evals/run refusals', () => {
  it('names every bad input in details.input_errors', async () => {
    const res = await submit({
      inputs: { audience: 'x'.repeat(201), mode: 'shout', tone: 'loud', reference_accounts: 'Acme' },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_argument');
    const fields = res.body.error.details.input_errors.map((e: { field: string }) => e.field).sort();
    expect(fields).toEqual(['audience', 'mode', 'prompt|message', 'reference_accounts', 'tone']);
  });

  it('refuses an unknown eval, a bad scope filter, and an evidence run that is not one', async () => {
    const unknown = await submit({ eval: 'no-such-eval', inputs: { message: 'hi' } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.details.fields[0].field).toBe('eval');
    const badFilter = await submit({
      inputs: { message: 'hi' },
      scope: {
        filters: [
          { field: 'kind', op: 'eq', value: 'call' },
          { field: 'no_such_field', op: 'eq', value: 1 },
        ],
      },
    });
    expect(badFilter.status).toBe(400);
    expect(badFilter.body.error.details.input_errors.map((e: { field: string }) => e.field)).toEqual([
      'scope.filters.1',
    ]);
    const tooMany = await submit({
      inputs: { message: 'hi' },
      scope: { filters: Array.from({ length: 26 }, () => ({ field: 'kind', op: 'eq', value: 'call' })) },
    });
    expect(tooMany.status).toBe(400);
    const noRun = await submit({
      inputs: { message: 'hi' },
      evidence_from_run: '01936f0e-7c1a-7b3e-9d2a-4a1b2c3d4e5f',
    });
    expect(noRun.status).toBe(400);
    expect(noRun.body.error.details.fields[0].field).toBe('evidence_from_run');
  });
});

describe('the report card', () => {
  it('grades a strong message above a weak one; the improvement never grades below what was submitted', async () => {
    const weak = await evaluate({
      inputs: { message: WEAK, artifact_type: 'email', audience: 'VP of Operations' },
      reuse: 'force',
    });
    const strong = await evaluate({
      inputs: { message: STRONG, artifact_type: 'email', audience: 'VP of Operations' },
      reuse: 'force',
    });
    const w = weak.run.run.verdict;
    const s = strong.run.run.verdict;
    expect(weak.run.status).toBe('complete');
    expect(weak.run.run.status).toBe('complete');
    expect(s.overall_score).toBeGreaterThan(w.overall_score);
    expect(s.verdict).toBe('pass');
    expect(w.verdict).toBe('needs_work');
    for (const v of [w, s]) {
      const improvement = v.cases[0].graders.find((g: { improvement?: unknown }) => g.improvement).improvement;
      expect(improvement.after.score).toBeGreaterThanOrEqual(improvement.before.score);
      expect(improvement.lift).toBeCloseTo(improvement.after.score - improvement.before.score, 2);
      expect(improvement.what_changed.length).toBeGreaterThan(0);
      for (const d of improvement.before.dimensions) expect(d.score).toBeGreaterThanOrEqual(1);
    }
    const weakImprovement = w.cases[0].graders.find((g: { improvement?: unknown }) => g.improvement).improvement;
    expect(weakImprovement.lift).toBeGreaterThan(0);
    expect(weakImprovement.after.message).not.toMatch(/revolutionary|!!!|I hope this email finds you well/);
    expect(w.summary).toEqual({ total_cases: 2, passed_cases: 0, failed_cases: 1, not_applicable_cases: 1 });
    expect(w.cases.find((c: { case_id: string }) => c.case_id === 'prompt')).toMatchObject({
      applicable: false,
      answered: false,
    });
  });

  it('quotes only what customers said, verbatim, from turns of this workspace', async () => {
    const { run } = await evaluate({ inputs: { message: STRONG, artifact_type: 'email' } });
    const quotes = run.run.verdict.cases[0].graders.find((g: { quotes: unknown[] }) => g.quotes.length > 0).quotes as {
      text: string;
      source: { turn_id: string; interaction_id: string };
      stance: string;
    }[];
    expect(quotes.length).toBeGreaterThanOrEqual(3);
    const turns = await h.database.db
      .select({ id: transcriptTurns.id, text: transcriptTurns.text, interactionId: transcriptTurns.interactionId })
      .from(transcriptTurns)
      .where(
        and(
          eq(transcriptTurns.workspaceId, ws.id),
          inArray(
            transcriptTurns.id,
            quotes.map((q) => q.source.turn_id),
          ),
        ),
      );
    for (const q of quotes) {
      const turn = turns.find((t) => t.id === q.source.turn_id);
      expect(turn, q.text).toBeDefined();
      expect(turn?.interactionId).toBe(q.source.interaction_id);
      expect(turn?.text.replace(/\s+/g, ' ')).toContain(q.text.replace(/\s+/g, ' '));
      expect(['supports', 'contradicts']).toContain(q.stance);
    }
    const evidence = (await h.request('GET', `/eval-runs/${run.run.id}/evidence`, { key: ws.viewer.key })).body.data;
    expect(evidence.evidence.summary.retrieval_status).toBe('ok');
    expect(evidence.evidence.quotes.length).toBe(quotes.length);
  });

  it('reuses a run for the same inputs unless told to force a new one', async () => {
    const body = {
      inputs: {
        message: 'Subject: Quick idea\n\nHi, would a 15-minute call next week about onboarding be useful?',
        artifact_type: 'email',
      },
    };
    const first = await submit(body);
    expect(first.body.data.reused).toBe(false);
    const again = await submit(body);
    expect(again.body.data).toMatchObject({ reused: true, run_id: first.body.data.run_id });
    await drain();
    const afterComplete = await submit(body);
    expect(afterComplete.body.data).toMatchObject({ reused: true, run_id: first.body.data.run_id, status: 'complete' });
    const forced = await submit({ ...body, reuse: 'force' });
    expect(forced.body.data.reused).toBe(false);
    expect(forced.body.data.run_id).not.toBe(first.body.data.run_id);
    const otherInputs = await submit({ inputs: { ...body.inputs, audience: 'CFO' } });
    expect(otherInputs.body.data.reused).toBe(false);
    await drain();
  });

  it('leaves rubric lines that do not apply to the artifact type out of both sides of the fraction', async () => {
    const ad = await evaluate({ inputs: { message: STRONG, artifact_type: 'ad', mode: 'gate' } });
    const email = await evaluate({ inputs: { message: STRONG, artifact_type: 'email', mode: 'gate' } });
    const none = await evaluate({ inputs: { message: STRONG, mode: 'gate' } });
    const gate = (await h.request('GET', `/eval-runs/${ad.handle.run_id}/gate`, { key: ws.viewer.key })).body.data.gate;
    expect(gate).toMatchObject({
      denominator: 'applicable_only',
      threshold: 0.7,
      reasoning: expect.any(String),
      critique: expect.any(Array),
    });
    const rules = ad.run.run.verdict.cases[0].graders.find((g: { kind: string }) => g.kind === 'rule').checks as {
      check_id: string;
      applicable: boolean;
    }[];
    for (const id of ['subject_line', 'has_call_to_action', 'specific_fact'])
      expect(rules.find((c) => c.check_id === id)?.applicable, id).toBe(false);
    expect(gate.checks_total).toBe(rules.filter((c) => c.applicable).length);
    expect(gate.checks_total).toBeLessThan(email.run.run.verdict.gate.checks_total);
    expect(none.run.run.verdict.gate.denominator).toBe('all_dimensions');
  });

  it('advises without rewriting the prompt: anchored suggestions, no prompt after-side', async () => {
    const prompt = 'Write an email. Make it good.';
    const { run } = await evaluate({ inputs: { message: WEAK, prompt, mode: 'advisory', artifact_type: 'email' } });
    const message = run.run.verdict.cases.find((c: { case_id: string }) => c.case_id === 'message');
    const suggestions = message.graders.find((g: { suggestions?: unknown }) => g.suggestions).suggestions as {
      anchor: string | null;
    }[];
    expect(suggestions.length).toBeGreaterThan(0);
    for (const s of suggestions) if (s.anchor !== null) expect(WEAK).toContain(s.anchor);
    const promptCase = run.run.verdict.cases.find((c: { case_id: string }) => c.case_id === 'prompt');
    const improvement = promptCase.graders.find((g: { improvement?: unknown }) => g.improvement).improvement;
    expect(improvement.after).toBeNull();
    expect(promptCase.graders.find((g: { suggestions?: unknown }) => g.suggestions).suggestions.length).toBeGreaterThan(
      0,
    );
  });

  it('abstains and says why when the evidence is thin, and grades when thin evidence is allowed', async () => {
    const body = { inputs: { message: STRONG, artifact_type: 'email', reference_accounts: ['No Such Account Inc'] } };
    const abstained = await evaluate(body);
    const v = abstained.run.run.verdict;
    expect(v).toMatchObject({
      verdict: 'abstain',
      overall_score: null,
      evidence: { retrieval_status: 'none', abstain_reason: expect.stringMatching(/No customer statement/) },
    });
    expect(v.cases.every((c: { answered: boolean }) => !c.answered)).toBe(true);
    expect(v.gate).toMatchObject({ passed: false, reasoning: null, critique: null });
    const allowed = await evaluate({ ...body, scope: { allow_thin_evidence: true } });
    expect(allowed.run.run.verdict.verdict).not.toBe('abstain');
    expect(allowed.run.run.verdict.overall_score).not.toBeNull();
  });

  it("grades against a slice of the data and against an earlier run's quotes", async () => {
    const sliced = await evaluate({
      inputs: { message: STRONG, artifact_type: 'email' },
      scope: { filters: [{ field: 'kind', op: 'eq', value: 'call' }], allow_thin_evidence: true },
    });
    expect(sliced.run.run.verdict.evidence.slice).toMatchObject({ filters: 1, interactions: expect.any(Number) });
    const reused = await evaluate({
      inputs: { message: WEAK, artifact_type: 'email' },
      evidence_from_run: sliced.handle.run_id,
    });
    expect(reused.run.run.verdict.evidence.retrieval_status).toBe('from_run');
  });

  it('reads unknown and malformed ids as null, and serves the drafts and improvement views', async () => {
    expect(
      (await h.request('GET', '/eval-runs/01936f0e-7c1a-7b3e-9d2a-4a1b2c3d4e5f', { key: ws.viewer.key })).body,
    ).toEqual({ data: null });
    expect((await h.request('GET', '/eval-runs/not-a-uuid', { key: ws.viewer.key })).body).toEqual({ data: null });
    const { handle } = await evaluate({ inputs: { message: WEAK, artifact_type: 'email' } });
    const drafts = (await h.request('GET', `/eval-runs/${handle.run_id}/drafts`, { key: ws.viewer.key })).body.data;
    expect(drafts.drafts[0]).toMatchObject({ case_id: 'message', before: WEAK, after: expect.any(String) });
    const improvement = (await h.request('GET', `/eval-runs/${handle.run_id}/improvement`, { key: ws.viewer.key })).body
      .data;
    expect(improvement.improvement[0].improvement.before.message).toBe(WEAK);
  });
});

describe('the event stream of an eval run', () => {
  /** The frames of an SSE body as {id, event}. */
  const frames = (text: string) =>
    text
      .split('\n\n')
      .filter((f) => f.includes('event: '))
      .map((f) => ({
        id: Number(/^id: (\d+)$/m.exec(f)?.[1]),
        event: /^event: (.+)$/m.exec(f)?.[1],
      }));

  it('streams the run\u2019s events with Accept: text/event-stream, as chat runs do, and replays after a seq', async () => {
    const { handle } = await evaluate({ inputs: { message: STRONG, artifact_type: 'email' }, reuse: 'force' });
    const stored = await queryRows<{ seq: number; type: string }>(
      h.database.db,
      sql`select seq, type from run_events where run_id = ${handle.run_id} order by seq`,
    );
    expect(stored.at(-1)?.type).toBe('run.completed');
    const stream = await h.fetch(`/api/platform/v1/eval-runs/${handle.run_id}`, {
      headers: { 'x-api-key': ws.viewer.key, accept: 'text/event-stream' },
    });
    expect(stream.status).toBe(200);
    expect(stream.headers.get('content-type')).toContain('text/event-stream');
    expect(frames(await stream.text())).toEqual(stored.map((e) => ({ id: e.seq, event: e.type })));

    const second = stored[1] as { seq: number };
    for (const resume of [`?after=${second.seq}`, '']) {
      const replay = await h.fetch(`/api/platform/v1/eval-runs/${handle.run_id}${resume}`, {
        headers: {
          'x-api-key': ws.viewer.key,
          accept: 'text/event-stream',
          ...(resume ? {} : { 'last-event-id': String(second.seq) }),
        },
      });
      expect(frames(await replay.text())).toEqual(
        stored.filter((e) => e.seq > second.seq).map((e) => ({ id: e.seq, event: e.type })),
      );
    }
    // Without the header the same path still answers the JSON read.
    const json = await h.request('GET', `/eval-runs/${handle.run_id}`, { key: ws.viewer.key });
    expect(json.body.data).toMatchObject({ status: 'complete', run: { id: handle.run_id } });
  });

  it('has no null to stream: an unknown or malformed id is a 404 envelope, not an empty stream', async () => {
    for (const id of ['01936f0e-7c1a-7b3e-9d2a-4a1b2c3d4e5f', 'not-a-uuid']) {
      const res = await h.request('GET', `/eval-runs/${id}`, {
        key: ws.viewer.key,
        headers: { accept: 'text/event-stream' },
      });
      expect(res.status, res.text).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    }
  });
});

describe('exports', () => {
  it('streams CSV and JSON lines, one row per run, with a content-disposition', async () => {
    const csv = await h.fetch('/api/platform/v1/evals/export.csv', { headers: { 'x-api-key': ws.viewer.key } });
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(csv.headers.get('content-disposition')).toBe('attachment; filename="eval-runs.csv"');
    const records = parse(await csv.text(), { columns: true }) as Record<string, string>[];
    expect(records.length).toBeGreaterThan(5);
    expect(Object.keys(records[0] ?? {})).toContain('overall_score');
    expect(records.every((r) => r.eval_slug)).toBe(true);
    const jsonl = await h.fetch('/api/platform/v1/evals/export.jsonl?eval=prompt-and-message-eval', {
      headers: { 'x-api-key': ws.viewer.key },
    });
    const lines = (await jsonl.text())
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.length).toBeGreaterThan(5);
    expect(lines.every((l) => l.eval_slug === 'prompt-and-message-eval')).toBe(true);
    expect(lines.some((l) => typeof l.overall_score === 'number')).toBe(true);
  });
});
