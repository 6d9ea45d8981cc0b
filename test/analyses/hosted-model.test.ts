import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalTransport } from '../../queues/transport/local.js';
import { startFakeServer, type FakeServer } from '../support/fake-http-server.js';
import { createHarness, openCorpusDatabase, type Harness, type SeededWorkspace } from '../support/harness.js';

/**
 * A hosted model answers from the same analyses as the local one: with MODEL_PROVIDER=openai pointed
 * at a local fake OpenAI-compatible server, a chat run offers the model `analyses_talk_ratio` (with
 * its input's JSON Schema), executes the call it makes as the caller, and verifies the answer built
 * from the result: the table citing the analysis is re-run and compared, so a changed cell is caught.
 */

type Body = {
  messages: { role: string; content: string | null; tool_call_id?: string }[];
  tools?: { function: { name: string; parameters: { properties: Record<string, unknown> } } }[];
};
let script: (body: Body) => Record<string, unknown> = () => ({});
const stepBodies: Body[] = [];
let server: FakeServer;
let h: Harness;
let ws: SeededWorkspace;

const toolCall = (id: string, name: string, args: Record<string, unknown>) => ({
  content: null,
  tool_calls: [{ id, type: 'function', function: { name, arguments: JSON.stringify(args) } }],
});

beforeAll(async () => {
  server = await startFakeServer((req, res) => {
    const body = JSON.parse(req.body || '{}') as Body;
    if (!req.url.endsWith('/chat/completions') || !body.tools) {
      res.writeHead(503, { 'content-type': 'application/json' }).end('{"error":"not scripted"}');
      return;
    }
    stepBodies.push(body);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        id: 'x',
        object: 'chat.completion',
        choices: [{ index: 0, message: { role: 'assistant', ...script(body) }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 100, completion_tokens: 20 },
      }),
    );
  });
  h = await createHarness({
    database: await openCorpusDatabase(),
    env: {
      MODEL_PROVIDER: 'openai',
      OPENAI_BASE_URL: `${server.url}/v1`,
      OPENAI_MODEL: 'gpt-scripted',
      OPENAI_EMBEDDING_MODEL: 'emb-scripted',
      OPENAI_API_KEY: 'sk-test',
    },
  });
  ws = await h.corpusWorkspace();
}, 120_000);
afterAll(async () => {
  await h.close();
  await h.database.close();
  await server.close();
});

/** A model that calls the talk-ratio analysis, then answers with its summary and blocks (changed by `edit`). */
function scriptTalkRatio(edit: (blocks: Record<string, unknown>[]) => Record<string, unknown>[]) {
  script = (body) => {
    const tool = body.messages.find((m) => m.role === 'tool');
    if (!tool) return toolCall('t1', 'analyses_talk_ratio', { order: 'most', limit: 5 });
    const result = JSON.parse(tool.content ?? 'null') as {
      ok: boolean;
      output: { summary: string[]; blocks: Record<string, unknown>[] };
    };
    expect(result.ok).toBe(true);
    return toolCall('done', 'final_answer', {
      text: result.output.summary.join(' '),
      content_blocks: edit(result.output.blocks),
      follow_ups: [],
    });
  };
}

async function chat(input: string) {
  const res = await h.request('POST', '/chat', { key: ws.editor.key, body: { input } });
  expect(res.status, res.text).toBe(202);
  await (h.services.queue as LocalTransport).drain();
  return (await h.request('GET', `/chat/runs/${res.body.data.run_id}`, { key: ws.viewer.key })).body.data;
}

describe('a hosted model and the analyses', () => {
  it('is offered each analysis as a tool, its call runs as the caller, and the answer built from it is verified', async () => {
    scriptTalkRatio((blocks) => blocks);
    const run = await chat('who talks the most on our calls?');
    expect(run.status).toBe('complete');
    const offered = stepBodies[0]!.tools!.find((t) => t.function.name === 'analyses_talk_ratio');
    expect(offered, 'the analysis is offered as a tool').toBeDefined();
    expect(Object.keys(offered!.function.parameters.properties)).toEqual(
      expect.arrayContaining(['period', 'reps', 'accounts', 'kinds', 'order', 'limit']),
    );
    expect(run.answer.grounding.verified, JSON.stringify(run.answer.grounding.checks)).toBe(true);
    expect(run.answer.grounding.tables).toMatchObject({ checked: 2, verified: 2, removed: 0 });
    const table = run.answer.content_blocks.find((b: { kind: string }) => b.kind === 'table');
    expect(table.query).toMatchObject({ operation: 'analyses.talk_ratio', result: 'by_rep' });
  });

  it('removes a table whose cell the model changed, and the answer is not verified', async () => {
    scriptTalkRatio((blocks) =>
      blocks.map((b, i) =>
        i === 0
          ? {
              ...b,
              data: (b.data as Record<string, unknown>[]).map((r, j) => (j === 0 ? { ...r, talk_share_pct: 12.5 } : r)),
            }
          : b,
      ),
    );
    const run = await chat('who talks the most on our calls?');
    expect(run.status).toBe('complete');
    expect(run.answer.grounding.verified).toBe(false);
    expect(run.answer.grounding.tables.removed).toBe(1);
  });
});
