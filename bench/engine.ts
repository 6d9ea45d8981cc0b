/**
 * Engine overhead: how many stages per second go through the run engine and the local transport
 * (signed delivery → stage endpoint → lease → stage → CAS commit → next publish), and the engine's
 * own time per stage, against a baseline of the same stage functions called in a plain loop.
 *
 *   npx tsx bench/engine.ts [runs=20] [stagesPerRun=10]
 */
import { createApp } from '../functions/app.js';
import type { RateLimiter } from '../platform/limiter/port.js';
import { buildServices } from '../functions/build-services.js';
import { loadConfig } from '../platform/config.js';
import { migrateDatabase } from '../platform/db/migrate.js';
import { openPglite } from '../platform/db/pglite.js';
import { sha256Hex } from '../platform/crypto.js';
import { createLogger } from '../platform/log.js';
import type { Pipeline, StageContext, StageResult } from '../queues/pipeline.js';
import type { OperationRegistry } from '../functions/registry.js';
import type { Services } from '../functions/services.js';
import type { ModelProvider } from '../platform/model/port.js';
import { allPipelines } from '../functions/modules.js';
import type { LocalTransport } from '../queues/transport/local.js';
import { createWorkspace } from '../functions/identity/members.js';
import { printTable } from './report.js';

/** The stage's own work: a little hashing, the same in both measurements. */
async function work(seed: string): Promise<string> {
  let h = seed;
  for (let i = 0; i < 20; i++) h = await sha256Hex(h);
  return h;
}

function chainPipeline(stagesPerRun: number): Pipeline {
  const names = Array.from({ length: stagesPerRun }, (_, i) => `s${i}`);
  const stage =
    (index: number) =>
    async (ctx: StageContext): Promise<StageResult> => {
      const out = await work(`${ctx.run.id}:${index}`);
      const next = names[index + 1];
      return next ? { next, output: out.slice(0, 8) } : { complete: true, output: out.slice(0, 8) };
    };
  return { kind: 'bench_chain', order: names, stages: Object.fromEntries(names.map((n, i) => [n, stage(i)])) };
}

/**
 * The real app over a fresh in-memory, migrated database with one empty workspace: the service's
 * pipelines plus the bench's own, the local transport attached. Options swap the registry or model.
 */
export async function openEmptyBenchApp(
  options: {
    pipelines?: Pipeline<Services>[];
    registry?: OperationRegistry;
    model?: ModelProvider;
    onQuery?: (sql: string) => void;
    env?: Record<string, string>;
    limiter?: RateLimiter;
  } = {},
) {
  const handle = await openPglite(options.onQuery ? { onQuery: options.onQuery } : {});
  await migrateDatabase(handle);
  const config = loadConfig({
    APP_ENV: 'test',
    PUBLIC_URL: 'http://bench.local',
    LOG_LEVEL: 'silent',
    RATE_LIMIT_GLOBAL_PER_MIN: '1000000',
    ...options.env,
  });
  const services = buildServices({
    config,
    db: handle.db,
    oauthSecret: 'bench-oauth-secret-0123456789abcdefghijkl',
    localQueueKeys: { current: 'bench-current-key-0123456789', next: 'bench-next-key-0123456789' },
    secretsEncryptionKey: 'bench-secrets-key-0123456789abcdefghijkl',
    log: createLogger('silent'),
    pipelines: [...allPipelines, ...(options.pipelines ?? [])],
    ...(options.registry ? { registry: options.registry } : {}),
    ...(options.model ? { model: options.model } : {}),
    ...(options.limiter ? { limiter: options.limiter } : {}),
  });
  const { app } = createApp({ services });
  const queue = services.queue as LocalTransport;
  queue.attach(async (req) => app.fetch(req));
  const { workspaceId } = await createWorkspace(handle.db, { name: 'bench' });
  return {
    app,
    handle,
    services,
    queue,
    workspaceId,
    close: async () => {
      await queue.close();
      await handle.close();
    },
  };
}

/** Arguments are read only by the command line below: run.ts passes its own flags (`--quick`), not counts. */
export async function benchEngine(runsCount = 20, stagesPerRun = 10): Promise<Record<string, string | number>[]> {
  const pipeline = chainPipeline(stagesPerRun);
  let statements = 0;
  const { services, queue, workspaceId, close } = await openEmptyBenchApp({
    pipelines: [pipeline],
    onQuery: () => statements++,
  });

  // Baseline: the same stage functions, called in a plain loop with a bare context.
  const baselineStart = performance.now();
  for (let r = 0; r < runsCount; r++) {
    const id = `baseline-${r}`;
    for (let i = 0; i < stagesPerRun; i++) await work(`${id}:${i}`);
  }
  const baselineMs = performance.now() - baselineStart;

  // Through the engine and the local transport (warm up once first).
  await services.engine.start({ workspaceId, kind: pipeline.kind });
  await queue.drain();
  const engineStart = performance.now();
  for (let r = 0; r < runsCount; r++) await services.engine.start({ workspaceId, kind: pipeline.kind });
  await queue.drain();
  const engineMs = performance.now() - engineStart;

  // Statements of one run, sequentially, so the dispatcher's idle reads are not shared with other runs.
  await queue.drain();
  statements = 0;
  await services.engine.start({ workspaceId, kind: pipeline.kind });
  await queue.drain();
  const perStage = statements / stagesPerRun;

  await close();
  const stages = runsCount * stagesPerRun;
  const basePerStage = baselineMs / stages;
  const enginePerStage = engineMs / stages;
  return [
    { measure: 'stages run', baseline: stages, engine: stages, ratio: '' },
    {
      measure: 'stages per second',
      baseline: (1000 / basePerStage).toFixed(0),
      engine: (1000 / enginePerStage).toFixed(1),
      ratio: (basePerStage / enginePerStage).toFixed(4),
    },
    {
      measure: 'ms per stage',
      baseline: basePerStage.toFixed(3),
      engine: enginePerStage.toFixed(3),
      ratio: (enginePerStage / basePerStage).toFixed(1),
    },
    {
      measure: "engine's own ms per stage",
      baseline: '0',
      engine: (enginePerStage - basePerStage).toFixed(3),
      ratio: '',
    },
    {
      measure: 'SQL statements per stage (one run alone, start and drain polling included)',
      baseline: '0',
      engine: perStage.toFixed(1),
      ratio: '',
    },
  ];
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const runsCount = Number(process.argv[2] ?? 20);
  const stagesPerRun = Number(process.argv[3] ?? 10);
  printTable(
    `Run engine, ${runsCount} runs x ${stagesPerRun} stages (local transport, in-memory PGlite)`,
    await benchEngine(runsCount, stagesPerRun),
  );
}
