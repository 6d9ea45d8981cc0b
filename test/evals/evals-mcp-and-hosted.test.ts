import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OpenAiCompatibleProvider } from '../../platform/model/openai.js';
import type { LocalTransport } from '../../queues/transport/local.js';
import { startFakeServer, type FakeServer } from '../support/fake-http-server.js';
import { createHarness, openCorpusDatabase, type Harness, type SeededWorkspace } from '../support/harness.js';

/** The evals MCP tool through the official SDK client, and the grading tasks on a hosted model (a local fake). */
const MESSAGE =
  'Subject: Onboarding in weeks\n\nHi Dana,\n\nTeams told us onboarding took 3 months. Ours takes 3 weeks.\n\nWould a 15-minute call next Tuesday be useful?\n\nBest, Sam';

describe('the evals MCP tool', () => {
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

  it('lists, runs, waits, gates, takes feedback, reports adoption and validates; resources resolve', async () => {
    const transport = new StreamableHTTPClientTransport(new URL(`${h.services.config.publicUrl}/api/platform/v1/mcp`), {
      fetch: (url, init) => h.fetch(new Request(url, init)),
      requestInit: { headers: { 'X-API-Key': ws.editor.key } },
    });
    const client = new Client({ name: 'evals-test', version: '1.0.0' });
    await client.connect(transport);
    const call = async (args: Record<string, unknown>) => {
      const result = (await client.callTool({ name: 'evals', arguments: args })) as {
        isError?: boolean;
        structuredContent?: Record<string, any>;
      };
      expect(result.isError, JSON.stringify(result.structuredContent)).toBeFalsy();
      return result.structuredContent as Record<string, any>;
    };
    const tools = await client.listTools();
    const evals = tools.tools.find((t) => t.name === 'evals');
    for (const action of [
      'list',
      'get',
      'run',
      'status',
      'gate',
      'feedback',
      'feedback_status',
      'adoption',
      'validate',
    ])
      expect(evals?.description, action).toContain(`- ${action}:`);

    expect((await call({ action: 'list' })).evals.length).toBeGreaterThan(0);
    const handle = await call({ action: 'run', inputs: { message: MESSAGE, artifact_type: 'email' } });
    expect(handle).toMatchObject({ success: true, resource: `eval-run://${handle.run_id}` });
    await (h.services.queue as LocalTransport).drain();
    const status = await call({ action: 'status', id: handle.run_id, wait_ms: 1000 });
    expect(status.status).toBe('complete');
    expect((await call({ action: 'gate', id: handle.run_id })).gate.threshold).toBe(0.7);
    expect((await call({ action: 'feedback', id: handle.run_id, evidence: { kind: 'reported_to_me' } })).counted).toBe(
      true,
    );
    expect((await call({ action: 'feedback_status', id: handle.run_id })).total).toBe(1);
    expect((await call({ action: 'adoption', slug: 'prompt-and-message-eval' })).eval_slug).toBe(
      'prompt-and-message-eval',
    );
    expect(
      (await call({ action: 'validate', input_schema: { fields: [{ name: 'x', type: 'text' }] }, graders: [] })).valid,
    ).toBe(false);

    for (const uri of [
      'eval://list',
      'eval://prompt-and-message-eval',
      `eval-run://${handle.run_id}`,
      `eval_run://${handle.run_id}`,
    ]) {
      const read = await client.readResource({ uri });
      const first = read.contents[0];
      expect(first && 'text' in first ? first.text : null, uri).toBeTruthy();
    }
    const alias = (await client.readResource({ uri: `eval_run://${handle.run_id}` })).contents[0];
    const run = JSON.parse(alias && 'text' in alias ? alias.text : 'null');
    expect(run.run.id).toBe(handle.run_id);
    await client.close();
  });
});

describe('grading on a hosted model (OpenAI-compatible, a local fake)', () => {
  let server: FakeServer;
  let h: Harness;
  let ws: SeededWorkspace;
  const seen: { task: string; input: any }[] = [];

  beforeAll(async () => {
    server = await startFakeServer((req, res) => {
      const body = JSON.parse(req.body);
      const task = body.response_format?.json_schema?.name as string;
      const input = JSON.parse(body.messages[1].content);
      seen.push({ task, input });
      let content: unknown;
      if (task === 'evals_grade') {
        content = {
          dimensions: input.dimensions.map((name: string) => ({
            name,
            score: input.text.includes('REWRITTEN') ? 5 : 2,
            reasoning: `hosted view of ${name}`,
          })),
          quote_stances: input.quotes.map((q: { index: number }) => ({
            index: q.index,
            stance: q.index === 0 ? 'contradicts' : 'supports',
          })),
        };
      } else if (task === 'evals_rewrite') {
        content = { text: `${input.text}\n\nREWRITTEN with the customers' words.`, what_changed: ['Hosted rewrite.'] };
      } else {
        content = { suggestions: [] };
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          id: 'x',
          object: 'chat.completion',
          choices: [
            { index: 0, message: { role: 'assistant', content: JSON.stringify(content) }, finish_reason: 'stop' },
          ],
        }),
      );
    });
    h = await createHarness({
      database: await openCorpusDatabase(),
      model: new OpenAiCompatibleProvider({
        baseUrl: `${server.url}/v1`,
        apiKey: 'sk-test',
        model: 'gpt-test',
        embeddingModel: 'emb-test',
        timeoutMs: 5000,
      }),
    });
    ws = await h.corpusWorkspace();
  }, 120_000);
  afterAll(async () => {
    await h.close();
    await h.database.close();
    await server.close();
  });

  it('sends the text and the verbatim quotes, and uses the hosted grades, stances and rewrite', async () => {
    const res = await h.request('POST', '/evals/run', {
      key: ws.editor.key,
      body: { inputs: { message: MESSAGE, artifact_type: 'email' } },
    });
    expect(res.status, res.text).toBe(202);
    await (h.services.queue as LocalTransport).drain();
    const verdict = (await h.request('GET', `/eval-runs/${res.body.data.run_id}`, { key: ws.viewer.key })).body.data.run
      .verdict;
    const grade = seen.find((s) => s.task === 'evals_grade');
    expect(grade?.input).toMatchObject({ target: 'message', text: MESSAGE, artifact_type: 'email' });
    expect(grade?.input.quotes.length).toBeGreaterThanOrEqual(3);
    expect(seen.some((s) => s.task === 'evals_rewrite' && s.input.text === MESSAGE)).toBe(true);
    const improvement = verdict.cases[0].graders.find((g: { improvement?: unknown }) => g.improvement).improvement;
    expect(
      improvement.before.dimensions.every(
        (d: { score: number; reasoning: string }) => d.score === 2 && d.reasoning.startsWith('hosted view'),
      ),
    ).toBe(true);
    expect(improvement.after.message).toContain('REWRITTEN');
    expect(improvement.after.score).toBeGreaterThan(improvement.before.score);
    expect(improvement.what_changed).toEqual(['Hosted rewrite.']);
    expect(improvement.before.quotes[0].stance).toBe('contradicts');
    const rules = verdict.cases[0].graders.find((g: { kind: string }) => g.kind === 'rule').checks;
    expect(rules.find((c: { check_id: string }) => c.check_id === 'no_contradicted_claim')).toMatchObject({
      applicable: true,
      passed: false,
    });
  });
});
