/**
 * The Cloudflare Workers entry: `fetch` serves the app, `scheduled` receives the every-minute cron.
 *
 * Per isolate: the configuration is parsed once per `env` object and the Hono app is built once.
 * Per request: a Neon handle is opened on the `http` transport (platform/db/neon.ts: statements over
 * fetch, one round trip each and no connection to set up; a WebSocket pool only once a transaction
 * needs one, since a pool must not outlive its request in Workers), the services are built from the
 * configuration and the bindings, the app handles the request, and the handle is closed in
 * `ctx.waitUntil` (after a streamed body ends, for SSE).
 *
 * This file must stay free of PGlite, node:fs-based migrators, @hono/node-server and `ws`:
 * test/worker-bundle.test.ts bundles it with wrangler and checks.
 */
import { ConfigError, loadConfig, type AppConfig } from '../platform/config.js';
import { openConfiguredNeon, type NeonHandle } from '../platform/db/neon.js';
import { ApiError } from '../platform/errors.js';
import { MemoryRateLimiter } from '../platform/limiter/memory.js';
import { systemClock } from '../platform/clock.js';
import { consoleByLevelWriter, createLogger } from '../platform/log.js';
import { RunNotifier } from '../queues/notifier.js';
import type { WorkersAiBinding } from '../platform/model/workers-ai.js';
import { createApp, type App } from './app.js';
import { buildServices } from './build-services.js';
import { defaultRegistry } from './modules.js';
import { R2FileStore, type R2BucketBinding } from '../platform/files/r2.js';
import { bundledWasmSqlParser } from '../platform/sql-parser/bundled-wasm.js';
import { runScheduledTick } from './scheduled-tick.js';
import type { Services } from './services.js';

// ---------------------------------------------------------------------------------------------
// The few Workers runtime types we use (not @cloudflare/workers-types: it conflicts with
// @types/node in this tsconfig). Structurally compatible with the runtime's objects and Hono's.

export interface ExecutionContext {
  waitUntil(promise: Promise<unknown>): void;
  passThroughOnException(): void;
  props: unknown;
}

export interface ScheduledController {
  readonly scheduledTime: number;
  readonly cron: string;
  noRetry(): void;
}

/** Bindings: the [vars] and secrets (strings), the Workers AI binding and the R2 bucket of uploads. */
export interface WorkerEnv {
  AI?: WorkersAiBinding;
  FILES?: R2BucketBinding;
  [name: string]: unknown;
}

// ---------------------------------------------------------------------------------------------

/**
 * What later code registers to run on the cron trigger (the routines scheduler): it receives the
 * controller and services built exactly as for a request, with a database handle that is closed
 * when the returned promise settles.
 */
export type CronHook = (event: {
  controller: ScheduledController;
  services: Services;
  ctx: ExecutionContext;
}) => Promise<void>;

export interface WorkerOptions {
  /** The cron handler (routines); without one the worker only logs that the cron fired. */
  cron?: CronHook;
  /** Open the database (tests substitute it); defaults to a Neon handle per request on the `http` transport. */
  openDatabase?: (config: WorkerConfig) => Pick<NeonHandle, 'db' | 'close'>;
}

export interface Worker {
  fetch(request: Request, env: WorkerEnv, ctx: ExecutionContext): Promise<Response>;
  scheduled(controller: ScheduledController, env: WorkerEnv, ctx: ExecutionContext): Promise<void>;
}

/** The configuration with what the worker itself needs made non-optional. */
export type WorkerConfig = AppConfig & {
  DATABASE_URL: string;
  OAUTH_SIGNING_SECRET: string;
  SECRETS_ENCRYPTION_KEY: string;
  QSTASH_TOKEN: string;
  QSTASH_CURRENT_SIGNING_KEY: string;
  QSTASH_NEXT_SIGNING_KEY: string;
};

type Prepared = { ok: true; config: WorkerConfig; app: App } | { ok: false; error: ConfigError };

/** The public message; the detail (which variables are wrong, never their values) goes to the log. */
const MISCONFIGURED = 'Service misconfigured';

/** Where a request's services ride from `fetch` to the app's services factory: the app's `c.env`. */
const SERVICES = Symbol('services');
interface RequestBindings extends WorkerEnv {
  [SERVICES]?: Services;
}

/**
 * Validate the environment for the worker: loadConfig's rules, plus what only a long-lived process
 * could do without (a local database, a generated OAuth secret, the in-process queue).
 */
export function parseWorkerConfig(env: WorkerEnv): WorkerConfig {
  const config = loadConfig(env);
  const problems: string[] = [];
  if (!config.DATABASE_URL)
    problems.push('DATABASE_URL: is required in the worker (Neon Postgres; there is no embedded database on Workers)');
  if (!config.SECRETS_ENCRYPTION_KEY) {
    problems.push('SECRETS_ENCRYPTION_KEY: is required in the worker (isolates cannot share a generated key)');
  }
  if (!config.OAUTH_SIGNING_SECRET) {
    problems.push('OAUTH_SIGNING_SECRET: is required in the worker (isolates cannot share a generated secret)');
  }
  if (!config.QSTASH_TOKEN || !config.QSTASH_CURRENT_SIGNING_KEY || !config.QSTASH_NEXT_SIGNING_KEY) {
    problems.push(
      'QSTASH_TOKEN, QSTASH_CURRENT_SIGNING_KEY, QSTASH_NEXT_SIGNING_KEY: are required in the worker ' +
        '(the local queue transport needs a long-lived process; use `npm start` for that)',
    );
  }
  if (config.MODEL_PROVIDER === 'workers_ai' && !env.AI) {
    problems.push('AI: MODEL_PROVIDER=workers_ai needs the Workers AI binding ([ai] binding = "AI" in wrangler.toml)');
  }
  if (problems.length > 0)
    throw new ConfigError(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  return config as WorkerConfig;
}

/** Build the worker. `export default createWorker()` below; later code passes its cron hook. */
export function createWorker(options: WorkerOptions = {}): Worker {
  const prepared = new WeakMap<object, Prepared>();
  // Used only when Upstash is not configured (non-production): one limiter per isolate, not per request.
  const memoryLimiter = new MemoryRateLimiter(systemClock);
  // Wakes long-polls served by this isolate when a stage run by this isolate commits.
  const runNotifier = new RunNotifier();
  // workerd has a global WebSocket and fetch: the configured options (NEON_WS_PROXY included) are all it needs.
  const openDatabase =
    options.openDatabase ?? ((config: WorkerConfig) => openConfiguredNeon(config, { transport: 'http' }));

  // Built once per configuration (the launch switches decide which operations it serves); the
  // services come per request through c.env.
  const appFor = (config: WorkerConfig | null): App =>
    createApp({
      services: (c) => {
        const services = (c.env as RequestBindings | undefined)?.[SERVICES];
        if (!services) throw new ApiError('internal', MISCONFIGURED);
        return services;
      },
      registry: defaultRegistry(config ?? undefined),
      clientIp: (c) => c.req.header('cf-connecting-ip') ?? undefined,
    }).app;
  // Serves a misconfigured environment's requests: the correlation id and the error envelope, nothing else.
  let fallbackApp: App | undefined;

  const prepare = (env: WorkerEnv): Prepared => {
    let entry = prepared.get(env);
    if (!entry) {
      try {
        const config = parseWorkerConfig(env);
        entry = { ok: true, config, app: appFor(config) };
      } catch (error) {
        // Anything else (a bug in parsing) is reported the same way, without its text reaching clients.
        entry = {
          ok: false,
          error: error instanceof ConfigError ? error : new ConfigError(`Invalid configuration: ${String(error)}`),
        };
      }
      prepared.set(env, entry);
    }
    return entry;
  };

  const build = (config: WorkerConfig, env: WorkerEnv) => {
    const handle = openDatabase(config);
    try {
      const services = buildServices({
        config,
        db: handle.db,
        oauthSecret: config.OAUTH_SIGNING_SECRET,
        secretsEncryptionKey: config.SECRETS_ENCRYPTION_KEY,
        log: createLogger(config.LOG_LEVEL, consoleByLevelWriter),
        workersAi: env.AI,
        // Without the bucket uploads live in the isolate's memory only: fine for a dry run, not for production.
        ...(env.FILES ? { files: new R2FileStore(env.FILES) } : {}),
        memoryLimiter,
        runNotifier,
        // Workers compile no WebAssembly from bytes: the parser's .wasm is bundled as a compiled module.
        sqlParser: bundledWasmSqlParser,
        // Caller SQL's own login (Neon cannot confine the server's role by SET ROLE): a Pool, for its transaction.
        ...(config.SQL_QUERY_DATABASE_URL
          ? {
              sqlQueryConnection: () =>
                openConfiguredNeon(
                  { ...config, DATABASE_URL: config.SQL_QUERY_DATABASE_URL as string },
                  { transport: 'websocket' },
                ),
            }
          : {}),
      });
      return { handle, services };
    } catch (error) {
      void handle.close().catch(() => {});
      throw error;
    }
  };

  return {
    async fetch(request, env, ctx) {
      const entry = prepare(env);
      if (!entry.ok) {
        console.error(JSON.stringify({ level: 'error', time: new Date().toISOString(), message: entry.error.message }));
        // Through the app without services: the correlation id is set, and the error envelope rendered.
        fallbackApp ??= appFor(null);
        return fallbackApp.fetch(request, env, ctx);
      }
      let built: ReturnType<typeof build>;
      try {
        built = build(entry.config, env);
      } catch (error) {
        console.error(
          JSON.stringify({
            level: 'error',
            time: new Date().toISOString(),
            message: 'could not build services',
            error: String(error),
          }),
        );
        return entry.app.fetch(request, env, ctx);
      }
      const bindings: RequestBindings = { ...env, [SERVICES]: built.services };
      let response: Response;
      try {
        response = await entry.app.fetch(request, bindings, ctx);
      } catch (error) {
        ctx.waitUntil(built.handle.close().catch(() => {}));
        throw error;
      }
      const { response: out, finished } = whenBodyEnds(response);
      const close = finished
        .then(() => Promise.allSettled(built.services.pendingWork))
        .then(() => built.handle.close());
      ctx.waitUntil(
        close.catch((error: unknown) => built.services.log.warn('closing the database pool failed', { error })),
      );
      return out;
    },

    async scheduled(controller, env, ctx) {
      const entry = prepare(env);
      if (!entry.ok) {
        console.error(JSON.stringify({ level: 'error', time: new Date().toISOString(), message: entry.error.message }));
        throw new Error(MISCONFIGURED);
      }
      const log = createLogger(entry.config.LOG_LEVEL, consoleByLevelWriter);
      const fields = { cron: controller.cron, scheduled_time: new Date(controller.scheduledTime).toISOString() };
      if (!options.cron) {
        log.info('cron fired (no cron handler registered)', fields);
        return;
      }
      log.info('cron fired', fields);
      const { handle, services } = build(entry.config, env);
      try {
        await options.cron({ controller, services, ctx });
      } finally {
        await handle.close();
      }
    },
  };
}

/**
 * A streamed body (SSE: run streams, MCP) may still read the database after `fetch` returns, so the
 * pool is closed only when such a body has been fully sent or cancelled. Other bodies are complete.
 */
export function whenBodyEnds(response: Response): { response: Response; finished: Promise<void> } {
  const type = response.headers.get('content-type') ?? '';
  if (!response.body || !type.startsWith('text/event-stream')) return { response, finished: Promise.resolve() };
  let settle!: () => void;
  const finished = new Promise<void>((resolve) => (settle = resolve));
  const reader = response.body.getReader();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (done) {
          controller.close();
          settle();
        } else {
          controller.enqueue(value);
        }
      } catch (error) {
        controller.error(error);
        settle();
      }
    },
    async cancel(reason) {
      try {
        await reader.cancel(reason);
      } finally {
        settle();
      }
    },
  });
  return {
    response: new Response(body, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    }),
    finished,
  };
}

/** The cron trigger is the Workers scheduler: every minute it runs the service's one tick. */
export const everyMinute: CronHook = ({ services, controller }) =>
  runScheduledTick(services, new Date(controller.scheduledTime));

export default createWorker({ cron: everyMinute });
