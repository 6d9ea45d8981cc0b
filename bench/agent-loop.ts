/**
 * The agent loop's own cost, and the local model's first answers.
 *
 * 1. Per turn, with a zero-latency model: 10 runs of 20 turns (each turn one trivial tool call)
 *    through the engine and the local transport, beside the same engine running 10 runs of 20
 *    no-op stages in the same process: the difference is what the loop adds per turn (caller
 *    re-check, tools from the registry, the journal, the transcript, the commit).
 * 2. The local model's first answer to the reference questions on the 1x demo corpus, end to end
 *    (chat run start → answer committed), beside one semantic search in the same run.
 *
 *   npx tsx bench/agent-loop.ts
 */
import { z } from '@hono/zod-openapi';
import { authenticateApiKey, createApiKey } from '../functions/identity/api-keys.js';
import { allOperations } from '../functions/modules.js';
import { defineOperation, OperationRegistry } from '../functions/registry.js';
import { startAgentRun } from '../functions/agents/start.js';
import type { ModelProvider, ModelTask, StepRequest, StepResult } from '../platform/model/port.js';
import type { Pipeline } from '../queues/pipeline.js';
import type { LocalTransport } from '../queues/transport/local.js';
import { openBenchCorpus, type BenchCorpus } from './corpus-db.js';
import { openEmptyBenchApp } from './engine.js';
import { ensureMembership, ensureUser } from '../functions/identity/members.js';
import { printTable } from './report.js';

const RUNS = 10;
const TURNS = 20;

/** A model that answers instantly: a trivial tool call per turn, then the answer on the last turn. */
class ZeroLatencyModel implements ModelProvider {
  readonly id = 'zero-latency';
  async run<I, O>(task: ModelTask<I, O>, input: I): Promise<O> {
    return task.output.parse(await task.local(task.input.parse(input)));
  }
  async step(_task: unknown, request: StepRequest): Promise<StepResult> {
    const done = request.messages.filter((m) => m.role === 'tool').length;
    if (done >= TURNS - 1)
      return {
        content: null,
        tool_calls: [
          { id: 'final', name: 'final_answer', arguments: { text: 'Done.', content_blocks: [], follow_ups: [] } },
        ],
        usage: null,
      };
    return { content: null, tool_calls: [{ id: `c${done}`, name: 'bench_noop', arguments: {} }], usage: null };
  }
}

const noop = defineOperation({
  id: 'bench.noop',
  method: 'get',
  path: '/bench/noop',
  summary: 'Do nothing (the cheapest tool)',
  tags: ['Bench'],
  scopes: [],
  minRole: 'viewer',
  stability: 'beta',
  visibility: 'public',
  output: z.object({ ok: z.literal(true) }),
  async handler() {
    return { ok: true as const };
  },
});

const bareChain: Pipeline = {
  kind: 'bench_bare',
  order: ['step'],
  stages: {
    step: async (ctx) => {
      const n = ((ctx.run.state.n as number | undefined) ?? 0) + 1;
      return n >= TURNS ? { complete: true, state: { n } } : { next: 'step', state: { n } };
    },
  },
};

export async function benchAgentLoop(): Promise<Record<string, string | number>[]> {
  const { handle, services, queue, workspaceId, close } = await openEmptyBenchApp({
    pipelines: [bareChain],
    registry: new OperationRegistry([...allOperations, noop]),
    model: new ZeroLatencyModel(),
  });
  const userId = await ensureUser(handle.db, 'bench-agent@bench.example');
  await ensureMembership(handle.db, workspaceId, userId, 'editor');
  const { key } = await createApiKey(handle.db, {
    workspaceId,
    userId,
    name: 'bench',
    bundle: 'customer_agent',
    role: 'editor',
    expiresAt: null,
  });
  const caller = await authenticateApiKey(handle.db, key, new Date());

  const time = async (start: () => Promise<unknown>) => {
    const t = performance.now();
    for (let r = 0; r < RUNS; r++) await start();
    await queue.drain();
    return performance.now() - t;
  };
  // Warm both paths once.
  await services.engine.start({ workspaceId, kind: bareChain.kind });
  await startAgentRun(services, caller, { input: 'warm up', onQuestion: 'auto', depth: 'standard', trigger: 'api' });
  await queue.drain();
  const bareMs = await time(() => services.engine.start({ workspaceId, kind: bareChain.kind }));
  const loopMs = await time(() =>
    startAgentRun(services, caller, { input: 'go', onQuestion: 'auto', depth: 'standard', trigger: 'api' }),
  );
  await close();
  const n = RUNS * TURNS;
  const bare = bareMs / n;
  const turn = loopMs / n;
  return [
    { measure: 'stages / turns run', bare_stage: n, agent_turn: n, ratio: '' },
    {
      measure: 'ms per stage / turn',
      bare_stage: bare.toFixed(2),
      agent_turn: turn.toFixed(2),
      ratio: (turn / bare).toFixed(2),
    },
    {
      measure: "the loop's own ms per turn (target < 25)",
      bare_stage: '0',
      agent_turn: (turn - bare).toFixed(2),
      ratio: '',
    },
  ];
}

export const REFERENCE_QUESTIONS = [
  'prep me for my call with Acme Logistics',
  'why do customers push back on pricing?',
  'which deals over $50K are in negotiation?',
  'what did Tidewater Logistics say about security last quarter?',
];

export async function benchLocalAnswers(corpus: BenchCorpus): Promise<Record<string, string | number>[]> {
  const caller = await authenticateApiKey(corpus.db, corpus.apiKey, corpus.services.clock.now());
  const queue = corpus.services.queue as LocalTransport;
  const searchStart = performance.now();
  await corpus.search({
    query: 'why do customers push back on pricing',
    mode: 'semantic',
    hydrate: true,
    audience: 'customer_voice',
    limit: 8,
  });
  const searchMs = performance.now() - searchStart;
  const rows: Record<string, string | number>[] = [];
  for (const question of REFERENCE_QUESTIONS) {
    const t = performance.now();
    await startAgentRun(corpus.services, caller, {
      input: question,
      onQuestion: 'auto',
      depth: 'standard',
      trigger: 'api',
    });
    await queue.drain();
    const ms = performance.now() - t;
    rows.push({
      question,
      'first answer ms': ms.toFixed(0),
      'one semantic search ms': searchMs.toFixed(0),
      ratio: (ms / searchMs).toFixed(1),
    });
  }
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  printTable(
    `Agent loop: ${RUNS} runs x ${TURNS} turns with a zero-latency model vs. the engine's bare stages (local transport)`,
    await benchAgentLoop(),
  );
  const corpus = await openBenchCorpus(1);
  try {
    printTable(
      'Local model: first answer to the reference questions on the 1x demo corpus',
      await benchLocalAnswers(corpus),
    );
  } finally {
    await corpus.close();
  }
  process.exit(0);
}
